import { Component, type ReactNode } from 'react';

interface Props {
  where: string;
  children: ReactNode;
}

/** A rendering error shows a message with a way forward instead of a blank page. */
export class ErrorBoundary extends Component<Props, { error: Error | null }> {
  override state = { error: null as Error | null };

  static getDerivedStateFromError(error: Error) {
    return { error };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="banner error" role="alert" data-testid="render-error">
        <strong>Something went wrong while showing {this.props.where}.</strong>
        <p>{this.state.error.message}</p>
        <p>
          Training (in its worker) is not affected.{' '}
          <button type="button" onClick={() => this.setState({ error: null })}>
            Try again
          </button>{' '}
          <button type="button" onClick={() => location.reload()}>
            Reload the page
          </button>{' '}
          (a reload resumes the run from its last autosave)
        </p>
      </div>
    );
  }
}
