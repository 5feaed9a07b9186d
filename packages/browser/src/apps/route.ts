/** What the built-in app routes (mail, shop, admin) take and answer; the server parses requests into these. */
/** A parsed request, as the app routes see it. */
export interface AppRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** The urlencoded form body (empty for GET). */
  form: URLSearchParams;
  /** Session id from the `sid` cookie. */
  session: string;
  referer?: string;
}

/** What a route answers: a page or a redirect (303). */
export interface AppReply {
  status?: number;
  html?: string;
  redirect?: string;
}
