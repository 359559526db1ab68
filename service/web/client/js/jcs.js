// RFC 8785 (JCS) canonical JSON for what the client signs: objects, arrays, strings, integers,
// booleans and null. ECMAScript's JSON.stringify already writes strings and numbers the JCS
// way (RFC 8785 §3.2.2 is defined by it); JCS adds the key order, by UTF-16 code units, which
// is what Array.prototype.sort compares.
export function canonical(value) {
  if (Array.isArray(value)) return "[" + value.map(canonical).join(",") + "]";
  if (value !== null && typeof value === "object") {
    const keys = Object.keys(value).filter((k) => value[k] !== undefined).sort();
    return "{" + keys.map((k) => JSON.stringify(k) + ":" + canonical(value[k])).join(",") + "}";
  }
  if (typeof value === "number" && !Number.isFinite(value)) throw new Error("not JSON");
  return JSON.stringify(value);
}
