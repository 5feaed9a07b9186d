/**
 * Request bodies of OSWorld's control API: JSON, urlencoded forms (`/file`, `/window_size`) and
 * multipart forms (`/setup/upload`, which `requests` sends with `files=`). A small reader of
 * `multipart/form-data` that keeps file parts as bytes.
 */

import { DataError } from "@retrace-cua/core/errors";
import { parseJson } from "./control-http.ts";

/** A parsed form: text fields, and file fields as bytes. */
export interface FormData {
  fields: Record<string, string>;
  files: Record<string, { filename: string; data: Buffer }>;
}

/** Parse a body by its content type; JSON objects become fields as they are (values not stringified). */
export function parseForm(contentType: string | undefined, body: Buffer): FormData {
  const type = (contentType ?? "").toLowerCase();
  if (type.startsWith("multipart/form-data")) {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType ?? "");
    if (!boundary) throw new DataError("multipart body without a boundary");
    return parseMultipart(body, boundary[1] ?? boundary[2]);
  }
  if (type.includes("json")) {
    const v = body.length ? parseJson(body.toString("utf8")) : {};
    return { fields: v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, string>) : {}, files: {} };
  }
  return { fields: Object.fromEntries(new URLSearchParams(body.toString("utf8"))), files: {} };
}

function parseMultipart(body: Buffer, boundary: string): FormData {
  const out: FormData = { fields: {}, files: {} };
  const delim = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delim);
  while (pos >= 0) {
    const start = pos + delim.length;
    if (body.subarray(start, start + 2).toString() === "--") break;
    const next = body.indexOf(delim, start);
    if (next < 0) break;
    const part = body.subarray(start + 2, next - 2); // skip CRLF after the delimiter and before the next
    const headEnd = part.indexOf("\r\n\r\n");
    if (headEnd >= 0) {
      const head = part.subarray(0, headEnd).toString("utf8");
      const data = part.subarray(headEnd + 4);
      const name = /name="([^"]*)"/i.exec(head)?.[1];
      const filename = /filename="([^"]*)"/i.exec(head)?.[1];
      if (name !== undefined) {
        if (filename !== undefined) out.files[name] = { filename, data: Buffer.from(data) };
        else out.fields[name] = data.toString("utf8");
      }
    }
    pos = next;
  }
  return out;
}
