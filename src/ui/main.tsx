import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { ErrorBoundary } from './components/ErrorBoundary.tsx';
import { boot, exposeTestHook } from './controller.ts';
import './styles.css';

exposeTestHook();
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <ErrorBoundary where="the page">
      <App />
    </ErrorBoundary>
  </StrictMode>,
);
void boot();
