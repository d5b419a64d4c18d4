// The JSON API, called with the session cookie. Every answer comes back as {http, data};
// screens branch on data.reason first and the HTTP status second (spec 7.1), because many
// refusals and states are HTTP 200.

const UNREACHABLE = {
  status: "error",
  reason: null,
  explanation: "The service could not be reached. Check your connection and try again.",
};

// The meter's refusals; another 429 (too many store checks at once) is the screen's to explain.
const METER_REASONS = new Set(["usage_limit_reached", "weekly_limit_reached"]);

export async function call(method, path, body) {
  const init = { method, headers: { Accept: "application/json" }, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    return { http: 0, data: UNREACHABLE };
  }
  let data;
  try {
    data = await response.json();
  } catch {
    data = { status: "error", reason: null, explanation: `The service answered ${response.status} without a JSON body.` };
  }
  if (response.status === 429 && data && METER_REASONS.has(data.reason)) {
    // The credit meter said no: the meter screen shows what stays usable and the ways up.
    window.dispatchEvent(new CustomEvent("app:limit", { detail: data }));
  }
  return { http: response.status, data };
}

export const get = (path) => call("GET", path);
export const post = (path, body = {}) => call("POST", path, body);

/** The refusal or state an answer carries (it names a reason, or failed outright), else null. */
export function refusalOf({ http, data }) {
  if (data && !Array.isArray(data) && typeof data === "object" && (data.reason || http >= 400 || http === 0)) {
    return data;
  }
  return null;
}
