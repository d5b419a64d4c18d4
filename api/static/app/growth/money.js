// Money typed by a founder (major units, "10.50") and money the API keeps (minor units, 1050),
// for the currency at hand: how many decimals it has comes from Intl, as dom.js moneyMinor does.

/** The decimals of a currency (2 for USD, 0 for JPY). */
export function decimals(currency) {
  try {
    return new Intl.NumberFormat(undefined, { style: "currency", currency: currency || "USD" }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

/** "10.5" -> 1050 (USD); null when it is not an amount. A comma as the decimal mark is read too. */
export function toMinor(text, currency) {
  const raw = String(text ?? "").trim().replace(/\s/g, "").replace(",", ".");
  if (!/^\d+(\.\d*)?$|^\.\d+$/.test(raw)) return null;
  return Math.round(Number(raw) * 10 ** decimals(currency));
}

/** 1050 -> 10.5 (USD), for an input's value. */
export function toMajor(minor, currency) {
  return Number(minor) / 10 ** decimals(currency);
}
