import { StandalonePage } from '@/components/standalone-page';
import { UnderConstruction } from '@/components/under-construction';
import { strings } from '@/lib/strings';

/** The page an equipment model's QR code opens on a phone next to the device. */
export function PublicInstructionPage() {
  return (
    <StandalonePage>
      <UnderConstruction title={strings.pages.shortInstruction} />
    </StandalonePage>
  );
}
