/**
 * Whether the Admin panel link, tile and routes are open to the signed-in user: true when
 * the access token carries any admin-type right (DESIGN §6). Rights are not read from the
 * session yet, so nobody sees the admin panel until the session work fills this in.
 */
export function useCanSeeAdmin(): boolean {
  return false;
}
