/** One JSON:API error object (docs/api.md §Errors). `status` is the HTTP status as a string. */
export interface ErrorObject {
  status: string;
  title: string;
  detail?: string | null;
  source?: { pointer?: string; parameter?: string } | null;
  code?: string;
}

const TITLES: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  503: "Service Unavailable",
};

/** The standard reason phrase used as `title` for an HTTP status. */
export function titleFor(status: number): string {
  return TITLES[status] ?? "Error";
}

/**
 * The one error type handlers and services throw. The app's `onError` turns it into
 * `{errors:[...]}` with the given status (docs/architecture.md §One error path). Several errors may be carried at once
 * (e.g. every failing field of a 422).
 */
export class ApiError extends Error {
  readonly status: number;
  readonly errors: ErrorObject[];
  readonly headers: Record<string, string>;

  constructor(
    status: number,
    errors: Omit<ErrorObject, "status" | "title">[] | string,
    headers: Record<string, string> = {},
  ) {
    const list = typeof errors === "string" ? [{ detail: errors }] : errors;
    super(list.map((e) => e.detail ?? "").join("; ") || titleFor(status));
    this.status = status;
    this.headers = headers;
    this.errors = list.map((e) => ({ status: String(status), title: titleFor(status), ...e }));
  }

  /** 404 for an unknown id or another account's id (never 403; docs/decisions.md §Wire format). */
  static notFound(detail?: string): ApiError {
    return new ApiError(404, [detail ? { detail } : {}]);
  }

  /** 400 for a bad query parameter, pointing at it with `source.parameter`. */
  static badParameter(parameter: string, detail: string): ApiError {
    return new ApiError(400, [{ detail, source: { parameter } }]);
  }

  /** 422 for a body field, pointing at it with `source.pointer`. */
  static invalidField(pointer: string, detail: string, code: string): ApiError {
    return new ApiError(422, [{ detail, source: { pointer }, code }]);
  }
}

/** The `{errors}` document of an ApiError. */
export function errorDocument(err: ApiError): { errors: ErrorObject[] } {
  return { errors: err.errors };
}
