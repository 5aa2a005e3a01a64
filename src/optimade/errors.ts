/** An OPTIMADE answer that is an error: the status, its title, and a detail that says what to fix. */
export class OptimadeError extends Error {
  override name = 'OptimadeError';
  constructor(
    readonly status: number,
    readonly title: string,
    detail: string,
    /** The query parameter at fault, reported as the error's `source.parameter`. */
    readonly parameter?: string,
  ) {
    super(detail);
  }
}

/** An optional feature of the specification that Quarry does not serve: 501, naming the feature. */
export function notImplemented(feature: string, parameter = 'filter'): OptimadeError {
  return new OptimadeError(
    501,
    'Not Implemented',
    `${feature} is an optional OPTIMADE feature that this server does not implement`,
    parameter,
  );
}
