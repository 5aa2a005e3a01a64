/** An error whose one-line message is all the user needs to see. */
export class CliError extends Error {
  override name = 'CliError';
}
