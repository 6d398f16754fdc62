import type { User } from '@/gen/portal/auth/v1/auth_pb';

/** The fields of a UserDraft, as the create and edit forms hold them. */
export type UserFormValues = {
  name: string;
  surname: string;
  lastName: string;
  login: string;
  /** Blank when editing: the password stays as it is. */
  password: string;
  email: string;
  /**
   * The HR system's employee number; saved, it links the person to HR's
   * sync (an administrator's word), empty unlinks them.
   */
  employeeNumber: string;
  /** 0 = no status. */
  statusId: bigint;
  departmentIds: bigint[];
  positionIds: bigint[];
  rightIds: bigint[];
};

export const emptyUser: UserFormValues = {
  name: '',
  surname: '',
  lastName: '',
  login: '',
  password: '',
  email: '',
  employeeNumber: '',
  statusId: 0n,
  departmentIds: [],
  positionIds: [],
  rightIds: [],
};

/** A stored user as the edit form starts from it; the password field starts blank. */
export function formValuesOf(user: User): UserFormValues {
  return {
    name: user.name,
    surname: user.surname,
    lastName: user.lastName,
    login: user.login,
    password: '',
    email: user.email,
    employeeNumber: user.employeeNumber,
    statusId: user.statusId,
    departmentIds: user.departmentIds,
    positionIds: user.positionIds,
    rightIds: user.rightIds,
  };
}
