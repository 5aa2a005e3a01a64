/**
 * A part of the page that failed while drawing says so, in place, instead of leaving the page blank; the rest of
 * the page stays usable. (The failure is also logged, so that tests and developers see it.)
 */
import { Component, type ComponentChildren } from 'preact';
import { Problem } from './Problem.js';

interface Props {
  /** What this part shows ("this view", "the attributes"). */
  what: string;
  children: ComponentChildren;
}

export class Boundary extends Component<Props, { error?: Error }> {
  override state: { error?: Error } = {};

  static override getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown) {
    console.error(`Quarry explorer: drawing ${this.props.what} failed:`, error);
  }

  override render() {
    if (this.state.error) {
      return (
        <Problem title={`Drawing ${this.props.what} failed`}>
          {this.state.error.message}. This is a bug of the explorer; the API answer is intact (see "As the API
          answers it" or the API itself).
        </Problem>
      );
    }
    return this.props.children;
  }
}
