import { SvgIcon, type SvgIconProps } from '@mui/material';

// Drawn here rather than shipped as image files: the client has no external assets.

/** The portal's mark: a white medical cross on a rounded blue tile. */
export function PortalLogo(props: SvgIconProps) {
  return (
    <SvgIcon viewBox="0 0 40 40" {...props}>
      <rect width="40" height="40" rx="9" fill="#0b5f8a" />
      <path d="M16 8h8v8h8v8h-8v8h-8v-8H8v-8h8z" fill="#fff" />
    </SvgIcon>
  );
}

/** The organisation's emblem: a heart-beat line inside a ring. */
export function OrganisationLogo(props: SvgIconProps) {
  return (
    <SvgIcon viewBox="0 0 40 40" {...props}>
      <circle cx="20" cy="20" r="18" fill="#fff" stroke="#12897f" strokeWidth="3" />
      <path
        d="M7 21h7l3-7 5 13 3-6h8"
        fill="none"
        stroke="#c62f3c"
        strokeWidth="3"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </SvgIcon>
  );
}
