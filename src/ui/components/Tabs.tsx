import { useRef, type KeyboardEvent } from 'react';
import { setState, useApp, type View } from '../state/store.ts';

/** WAI-ARIA tabs: arrow keys, Home and End move between views. */
export function Tabs({ views }: { views: { id: View; label: string }[] }) {
  const view = useApp((s) => s.view);
  const refs = useRef<(HTMLButtonElement | null)[]>([]);
  const onKey = (e: KeyboardEvent, i: number) => {
    let j = i;
    if (e.key === 'ArrowRight') j = (i + 1) % views.length;
    else if (e.key === 'ArrowLeft') j = (i - 1 + views.length) % views.length;
    else if (e.key === 'Home') j = 0;
    else if (e.key === 'End') j = views.length - 1;
    else return;
    e.preventDefault();
    setState({ view: views[j]!.id });
    refs.current[j]?.focus();
  };
  return (
    <div role="tablist" aria-label="Views" className="tabs">
      {views.map((v, i) => (
        <button
          key={v.id}
          ref={(el) => {
            refs.current[i] = el;
          }}
          id={`tab-${v.id}`}
          role="tab"
          type="button"
          aria-selected={view === v.id}
          aria-controls={`view-${v.id}`}
          tabIndex={view === v.id ? 0 : -1}
          data-testid={`tab-${v.id}`}
          onClick={() => setState({ view: v.id })}
          onKeyDown={(e) => onKey(e, i)}
        >
          {v.label}
        </button>
      ))}
    </div>
  );
}
