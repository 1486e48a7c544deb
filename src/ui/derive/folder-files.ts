/**
 * A folder the person gave the page, as a list of files with their paths under it: from the folder
 * picker (`<input type="file" webkitdirectory>`, whose files carry `webkitRelativePath`) or from a
 * folder dropped on the page (walked through its FileSystemDirectoryEntry). Nothing is read here: the
 * run reader's worker reads what it needs, when it needs it.
 */

export interface PickedFile {
  /** '/'-separated, relative to the folder, no leading '/'. */
  path: string;
  file: File;
}

export interface PickedFolder {
  name: string;
  files: PickedFile[];
}

/** The picker's files: every path starts with the folder's own name, which becomes the folder's name. */
export function folderFromPicker(list: FileList | File[]): PickedFolder | null {
  const files = [...list];
  if (!files.length) return null;
  const first = (files[0]!.webkitRelativePath || files[0]!.name).split('/')[0]!;
  const picked = files.map((file) => {
    const rel = file.webkitRelativePath || file.name;
    const parts = rel.split('/');
    return { path: parts.length > 1 ? parts.slice(1).join('/') : rel, file };
  });
  return { name: first, files: picked };
}

/** The dropped item's folder, when it is one (read synchronously in the drop handler, as the browser requires). */
export function droppedDirectory(e: DragEvent): FileSystemDirectoryEntry | null {
  for (const item of [...(e.dataTransfer?.items ?? [])]) {
    const entry = item.kind === 'file' ? item.webkitGetAsEntry() : null;
    if (entry?.isDirectory) return entry as FileSystemDirectoryEntry;
  }
  return null;
}

const entriesOf = (dir: FileSystemDirectoryEntry): Promise<FileSystemEntry[]> =>
  new Promise((ok, fail) => {
    const reader = dir.createReader();
    const all: FileSystemEntry[] = [];
    // readEntries answers in batches (Chromium: 100 at a time) until it answers with none.
    const next = () => reader.readEntries((batch) => (batch.length ? (all.push(...batch), next()) : ok(all)), fail);
    next();
  });

const fileOf = (entry: FileSystemFileEntry): Promise<File> => new Promise((ok, fail) => entry.file(ok, fail));

/** Every file under a dropped folder, with its path relative to it. */
export async function folderFromEntry(root: FileSystemDirectoryEntry): Promise<PickedFolder> {
  const files: PickedFile[] = [];
  const walk = async (dir: FileSystemDirectoryEntry, prefix: string): Promise<void> => {
    for (const entry of await entriesOf(dir)) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory) await walk(entry as FileSystemDirectoryEntry, `${path}/`);
      else files.push({ path, file: await fileOf(entry as FileSystemFileEntry) });
    }
  };
  await walk(root, '');
  return { name: root.name, files };
}
