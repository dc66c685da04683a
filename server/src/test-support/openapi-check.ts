import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

type Json = Record<string, any>;

/** A JSON Pointer token (RFC 6901). */
const pointer = (token: string) => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Checks answers against the server's own OpenAPI document: the status must be documented for the
 * operation, the body must match the documented schema of its media type, and every documented
 * response header must be there. Every call() of the API tests goes through it, so the document
 * cannot drift from what the server does.
 */
export class AnswerChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly doc: Json) {
    addFormats.default(this.ajv);
    // zod's names for CIDR ranges; the pattern beside them says what they are.
    this.ajv.addFormat('cidrv4', true);
    this.ajv.addFormat('cidrv6', true);
    this.ajv.addSchema(doc, 'openapi');
  }

  private validator(path: string): ValidateFunction {
    let v = this.compiled.get(path);
    if (!v) {
      v = this.ajv.getSchema(`openapi#${path}`);
      if (!v) throw new Error(`no schema at ${path}`);
      this.compiled.set(path, v);
    }
    return v;
  }

  /** The documented path template a request path (below the API base) falls under. */
  private template(path: string): string | undefined {
    if (Object.hasOwn(this.doc.paths, path)) return path;
    return Object.keys(this.doc.paths).find((t) => {
      if (!t.includes('{')) return false;
      const re = new RegExp(`^${t.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
      return re.test(path);
    });
  }

  /** Problems with one answer, or an empty list. */
  check(method: string, path: string, status: number, headers: Headers, text: string): string[] {
    const problems: string[] = [];
    const where = `${method} ${path} → ${status}`;
    const m = method.toLowerCase();
    const template = this.template(path);
    const operation = template ? this.doc.paths[template][m] : undefined;
    if (!operation) {
      // An unknown path or another method: 404 or 405 in the error shape, before any key is looked at.
      if (status !== 404 && status !== 405) problems.push(`${where}: not a documented operation`);
      else this.checkJson('/components/schemas/Error', text, where, problems);
      return problems;
    }
    const response = operation.responses[String(status)];
    if (!response) return [`${where}: status not documented`];
    const base = `/paths/${pointer(template!)}/${m}/responses/${status}`;
    for (const name of Object.keys(response.headers ?? {})) {
      const header = this.resolve(response.headers[name]);
      if (header.required && !headers.has(name)) problems.push(`${where}: header ${name} missing`);
    }
    if (!response.content) {
      if (text !== '') problems.push(`${where}: a body where the document has none`);
      return problems;
    }
    const type = headers.get('content-type') ?? '';
    const media =
      Object.keys(response.content).find((t) => t === type) ??
      Object.keys(response.content).find((t) => t === type.split(';')[0]!.trim());
    if (!media) return [...problems, `${where}: Content-Type ${type} not documented`];
    if (media === 'application/json') {
      this.checkJson(`${base}/content/${pointer(media)}/schema`, text, where, problems);
    }
    return problems;
  }

  private resolve(node: Json): Json {
    if (typeof node.$ref !== 'string') return node;
    return node.$ref
      .slice(2)
      .split('/')
      .reduce((o: Json, k: string) => o[k.replace(/~1/g, '/').replace(/~0/g, '~')], this.doc);
  }

  private checkJson(path: string, text: string, where: string, problems: string[]) {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      problems.push(`${where}: the body is not JSON`);
      return;
    }
    const validate = this.validator(path);
    if (!validate(body)) {
      const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || '/'} ${e.message}`);
      problems.push(`${where}: does not match the document: ${errors.join('; ')}`);
    }
  }
}
