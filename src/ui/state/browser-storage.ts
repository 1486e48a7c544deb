/** The browser's local storage; null where there is none or it is refused (Node, a locked-down browser). */
export function browserStorage(): Storage | null {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}
