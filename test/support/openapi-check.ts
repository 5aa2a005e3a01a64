/**
 * Checks an HTTP answer against the OpenAPI document: the operation for its method and path, the response
 * for its status, the media type, and the body against that response's JSON schema (Ajv, JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1). Component references are rewritten into one schema resource Ajv can resolve.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Json>>; components: Record<string, Record<string, Json>> };

// ajv-formats is CommonJS with its function as `default`.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

export interface Answer {
  method: string;
  /** Path with query string, as requested. */
  path: string;
  status: number;
  contentType: string | null | undefined;
  /** Parsed JSON, or null/undefined when there is none (HEAD, OPTIONS, files). */
  body: unknown;
  /** Headers by lower-case name; a name that is absent (or null) was not sent. */
  headers?: Record<string, string | null | undefined>;
  /** Which headers `headers` knows about (a recording keeps a few); all when undefined. */
  recordedHeaders?: string[];
}

export class OpenApiChecker {
  private readonly doc: Doc;
  private readonly ajv: Ajv2020;
  private readonly compiled = new Map<unknown, ValidateFunction>();
  /** `GET /nodes/{id}/ 200` for each operation and status whose schema a body was checked against. */
  readonly checked = new Set<string>();
  private readonly matchers: { template: string; re: RegExp; params: number }[];

  constructor(
    document: unknown,
    private readonly prefix = '/api/v4',
  ) {
    // One resource holds the component schemas; every `#/components/schemas/X` points into it.
    const text = JSON.stringify(document).replaceAll(
      '"#/components/schemas/',
      '"https://quarry.invalid/openapi#/$defs/',
    );
    this.doc = JSON.parse(text) as Doc;
    this.ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
    addFormats(this.ajv);
    this.ajv.addFormat('binary', true);
    this.ajv.addSchema({ $id: 'https://quarry.invalid/openapi', $defs: this.doc.components.schemas });
    this.matchers = Object.keys(this.doc.paths)
      .map((template) => ({
        template,
        re: new RegExp(`^${template.replace('{id}', '[^/]+').replace('{page}', '\\d+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      // A literal segment wins over a parameter (`/nodes/statistics/` is not `/nodes/{id}/`), as OpenAPI says.
      .sort((a, b) => a.params - b.params);
  }

  /** The document's path template for a request path, or undefined for a path outside the API. */
  templateOf(requestPath: string): string | undefined {
    let path = requestPath.split('?')[0] as string;
    if (!path.startsWith(this.prefix)) return undefined;
    path = path.slice(this.prefix.length);
    if (!path.endsWith('/')) path += '/';
    return this.matchers.find((m) => m.re.test(path))?.template;
  }

  private resolve(object: Json): Json {
    const ref = object.$ref;
    if (typeof ref !== 'string') return object;
    const [, section, name] = /^#\/components\/(\w+)\/(.+)$/.exec(ref) ?? [];
    return this.doc.components[section as string]?.[name as string] as Json;
  }

  validatorFor(schema: unknown): ValidateFunction {
    let validate = this.compiled.get(schema);
    if (!validate) this.compiled.set(schema, (validate = this.ajv.compile(schema as Json)));
    return validate;
  }

  /** The headers a response requires that the answer lacks (among those it knows about). */
  private missingHeaders(response: Json, answer: Answer): string[] {
    if (answer.headers === undefined) return [];
    return Object.entries((response.headers ?? {}) as Record<string, Json>)
      .filter(([, header]) => this.resolve(header).required === true)
      .map(([name]) => name.toLowerCase())
      .filter((name) => answer.recordedHeaders === undefined || answer.recordedHeaders.includes(name))
      .filter((name) => answer.headers?.[name] == null);
  }

  /** What is wrong with an answer according to the document, or undefined when it conforms. */
  problem(answer: Answer): string | undefined {
    const template = this.templateOf(answer.path);
    let response: Json | undefined;
    if (template === undefined) {
      if (answer.status !== 404) return `no path of the document matches, yet the answer is ${answer.status}`;
      response = this.doc.components.responses?.NotFound;
    } else {
      const operation = this.doc.paths[template]?.[answer.method.toLowerCase()];
      if (operation === undefined && answer.status === 500) {
        // A failure of the server can answer any request (the reference's, to a method a path does not answer).
        response = this.doc.components.responses?.InternalError;
      } else if (operation === undefined) {
        if (answer.status !== 405)
          return `${template} has no ${answer.method}, yet the answer is ${answer.status}`;
        response = this.doc.components.responses?.MethodNotAllowed;
      } else {
        const listed = (operation.responses as Record<string, Json>)[String(answer.status)];
        if (listed === undefined) return `${answer.method} ${template} does not list status ${answer.status}`;
        response = this.resolve(listed);
      }
    }
    if (response === undefined) return 'the document lacks a response component';
    const missing = this.missingHeaders(response, answer);
    if (missing.length > 0) return `headers the document requires are missing: ${missing.join(', ')}`;
    if (answer.method === 'HEAD') return undefined;
    const content = response.content as Record<string, Json> | undefined;
    const media = (answer.contentType ?? '').split(';')[0]?.trim() ?? '';
    if (content === undefined) return answer.body == null ? undefined : 'a body where the document has none';
    const entry = content[media];
    if (entry === undefined) return `media type ${media} is not among ${Object.keys(content).join(', ')}`;
    if (media !== 'application/json' || answer.body == null) return undefined;
    const validate = this.validatorFor(entry.schema);
    this.checked.add(`${answer.method} ${template ?? '(unknown)'} ${answer.status}`);
    if (validate(answer.body)) return undefined;
    // The first few mistakes say enough (a wrong schema repeats one per record).
    return this.ajv.errorsText(validate.errors?.slice(0, 4), { separator: '; ' });
  }
}
