/** An entity id from a route parameter (ids are int64: bigint); undefined if it is not one. */
export function parseId(value: string | undefined): bigint | undefined {
  return value !== undefined && /^[1-9]\d{0,18}$/.test(value) ? BigInt(value) : undefined;
}
