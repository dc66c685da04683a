import { useStrings } from '../../state/context.js';
import { SettingsForm, TextArea, Toggle } from '../kit/controls.js';
import { useResource } from '../kit/useResource.js';
import { CategorySettings } from './CategorySettings.js';
import './form.css';
import { formStrings } from './strings.js';

/** `/admin r=form`: docs/api.md "/admin", `form`. */
interface FormConfig {
  require_category: boolean;
  show_page_url: boolean;
  privacy_notice: string | null;
  allow_attachments: boolean;
}

/** The widget's form switches, and below them its categories with their fields (two resources, saved apart). */
export function FormSettings() {
  const t = useStrings(formStrings);
  const form = useResource<FormConfig>('form');
  return (
    <>
      <SettingsForm title={t.title} intro={t.intro} resource={form}>
        {(f, set) => (
          <>
            <Toggle
              id="form-require-category"
              label={t.requireCategory}
              hint={t.requireCategoryHint}
              checked={f.require_category}
              onChange={(v) => set({ ...f, require_category: v })}
            />
            <Toggle
              id="form-page-url"
              label={t.showPageUrl}
              hint={t.showPageUrlHint}
              checked={f.show_page_url}
              onChange={(v) => set({ ...f, show_page_url: v })}
            />
            <Toggle
              id="form-attachments"
              label={t.allowAttachments}
              checked={f.allow_attachments}
              onChange={(v) => set({ ...f, allow_attachments: v })}
            />
            <TextArea
              id="form-privacy"
              label={t.privacyNotice}
              hint={t.privacyNoticeHint}
              error={form.errors.privacy_notice}
              value={f.privacy_notice}
              onChange={(v) => set({ ...f, privacy_notice: v.trim() ? v : null })}
            />
          </>
        )}
      </SettingsForm>
      <CategorySettings />
    </>
  );
}
