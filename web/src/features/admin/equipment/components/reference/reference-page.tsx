import { Box, Typography } from '@mui/material';

import { PageHeader } from '@/components/page-header';
import { equipmentStrings } from '@/lib/equipment-strings';

import {
  useCommonDocuments,
  useCountries,
  useCreateCommonDocument,
  useCreateCountry,
  useCreateEnvironmentType,
  useCreateManufacturer,
  useEnvironmentTypes,
  useManufacturers,
} from '../../api/wiki-queries';
import type { FormField } from '../../utils/fields-form';
import { ReferenceSection } from './reference-section';

const reference = equipmentStrings.reference;

const nameField = (label: string, required: string): FormField[] => [{ name: 'name', label, required }];

const documentFields: FormField[] = [
  { name: 'title', label: reference.documents.name, required: reference.documents.nameRequired },
  { name: 'description', label: reference.documents.description, multiline: true },
  {
    name: 'url',
    label: reference.documents.url,
    required: reference.documents.urlRequired,
    helperText: reference.documents.urlHint,
  },
];

/** A list query as a section shows it: undefined while loading, null if it failed. */
function itemsOf<T, I>(query: { data: T | undefined; isError: boolean }, toItems: (data: T) => I[]) {
  if (query.isError) return null;
  return query.data === undefined ? undefined : toItems(query.data);
}

/** Beyond spec §2: the reference lists equipment is described with, and adding to them. */
export function ReferencePage() {
  const countries = useCountries();
  const manufacturers = useManufacturers();
  const environmentTypes = useEnvironmentTypes();
  const documents = useCommonDocuments();
  const createCountry = useCreateCountry();
  const createManufacturer = useCreateManufacturer();
  const createEnvironmentType = useCreateEnvironmentType();
  const createDocument = useCreateCommonDocument();

  const countryList = countries.data?.countries ?? [];
  const countryName = new Map(countryList.map((country) => [country.id, country.name]));
  const manufacturerFields: FormField[] = [
    ...nameField(reference.manufacturers.name, reference.manufacturers.nameRequired),
    {
      name: 'countryId',
      label: reference.manufacturers.country,
      options: [
        { value: '', label: reference.manufacturers.noCountry },
        ...countryList.map((country) => ({ value: String(country.id), label: country.name })),
      ],
    },
  ];

  return (
    <>
      <PageHeader title={reference.title} />
      <Typography sx={{ color: 'text.secondary', mb: 3, mt: -1 }}>{reference.hint}</Typography>
      <Box
        sx={{
          display: 'grid',
          gap: 3,
          gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' },
          alignItems: 'start',
        }}
      >
        <ReferenceSection
          id="countries"
          title={reference.countries.title}
          empty={reference.countries.empty}
          createTitle={reference.countries.createTitle}
          fields={nameField(reference.countries.name, reference.countries.nameRequired)}
          items={itemsOf(countries, (data) => data.countries.map(({ id, name }) => ({ id, primary: name })))}
          create={(values) => createCountry.mutateAsync({ name: values.name })}
        />
        <ReferenceSection
          id="manufacturers"
          title={reference.manufacturers.title}
          empty={reference.manufacturers.empty}
          createTitle={reference.manufacturers.createTitle}
          fields={manufacturerFields}
          items={itemsOf(manufacturers, (data) =>
            data.manufacturers.map(({ id, name, countryId }) => ({
              id,
              primary: name,
              secondary: countryName.get(countryId),
            })),
          )}
          create={(values) =>
            createManufacturer.mutateAsync({ name: values.name, countryId: BigInt(values.countryId || 0) })
          }
        />
        <ReferenceSection
          id="environment-types"
          title={reference.environmentTypes.title}
          empty={reference.environmentTypes.empty}
          createTitle={reference.environmentTypes.createTitle}
          fields={nameField(reference.environmentTypes.name, reference.environmentTypes.nameRequired)}
          items={itemsOf(environmentTypes, (data) =>
            data.environmentTypes.map(({ id, name }) => ({ id, primary: name })),
          )}
          create={(values) => createEnvironmentType.mutateAsync({ name: values.name })}
        />
        <ReferenceSection
          id="common-documents"
          title={reference.documents.title}
          empty={reference.documents.empty}
          createTitle={reference.documents.createTitle}
          fields={documentFields}
          items={itemsOf(documents, (data) =>
            data.commonDocuments.map(({ id, title, description, url }) => ({
              id,
              primary: title,
              secondary: description || undefined,
              href: url,
            })),
          )}
          create={(values) =>
            createDocument.mutateAsync({
              title: values.title,
              description: values.description,
              url: values.url,
            })
          }
        />
      </Box>
    </>
  );
}
