// The page's error banner, as the actions set it.
import { setState, type AppError } from './store.ts';

export const message = (e: unknown) => (e instanceof Error ? e.message : String(e));

export function showError(kind: AppError['kind'], title: string, e: unknown): void {
  setState({ error: { kind, title, message: message(e) } });
}

export function dismissError(): void {
  setState({ error: null });
}
