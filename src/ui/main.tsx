import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

// Placeholder entry point; the real app shell replaces this file.
function App() {
  return <h1>RLVR Playground</h1>;
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
