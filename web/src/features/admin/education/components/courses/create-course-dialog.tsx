import AddOutlined from '@mui/icons-material/AddOutlined';
import { Button } from '@mui/material';
import { useState } from 'react';

import { FormDialog } from '@/components/form-dialog';
import { adminStrings } from '@/lib/admin-strings';
import { notify } from '@/lib/notifications';
import { strings } from '@/lib/strings';

import { useCreateCourse } from '../../api/education-queries';
import { emptyCourse } from '../../utils/form-values';
import { CourseForm } from './course-form';

const formId = 'create-course';
const text = adminStrings.education.course;

export function CreateCourseDialog() {
  const [open, setOpen] = useState(false);
  const [formKey, setFormKey] = useState(0);
  const create = useCreateCourse();

  return (
    <>
      <Button variant="contained" startIcon={<AddOutlined />} onClick={() => setOpen(true)}>
        {text.create}
      </Button>
      <FormDialog
        open={open}
        title={text.createTitle}
        formId={formId}
        submitLabel={strings.common.create}
        pending={create.isPending}
        succeeded={create.isSuccess}
        closeDelayMs={2000}
        onClose={() => setOpen(false)}
        onDone={() => {
          setOpen(false);
          setFormKey((key) => key + 1);
          create.reset();
        }}
      >
        <CourseForm
          key={formKey}
          id={formId}
          initial={emptyCourse}
          disabled={create.isPending || create.isSuccess}
          onSubmit={(values) =>
            create.mutate(values, {
              onSuccess: () => notify.success(text.created),
              onError: () => notify.error(text.createFailed),
            })
          }
        />
      </FormDialog>
    </>
  );
}
