// Demo staff loaded by target `all` (services/auth/src/demo.rs): each password is the
// login followed by `-demo-password`.
import { adminLogin, adminPassword } from './portal-server';

export type Account = { login: string; password: string };

export const admin: Account = { login: adminLogin, password: adminPassword };
export const nurse: Account = { login: 'nurse', password: 'nurse-demo-password' };
export const doctor: Account = { login: 'doctor', password: 'doctor-demo-password' };
/** Волков Дмитрий Олегович: EquipmentEditing, in every demo department. */
export const engineer: Account = { login: 'engineer', password: 'engineer-demo-password' };
/** Соколова Ирина Павловна: реанимация, no rights, no course assigned or passed (not cleared). */
export const icuNurse: Account = { login: 'icu-nurse', password: 'icu-nurse-demo-password' };
