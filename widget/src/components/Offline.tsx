import { useStore } from '../state/context.js';

/** Outside business hours: says when support is back. */
export function Offline() {
  const { t, fill, config, ctx } = useStore();
  const hours = config.business_hours;
  if (hours.open_now) return null;
  const when = hours.next_open_at
    ? fill(t.offlineAt, {
        when: new Date(hours.next_open_at).toLocaleString(ctx.locale, {
          weekday: 'long',
          hour: '2-digit',
          minute: '2-digit',
        }),
      })
    : '.';
  return (
    <p class="notice" role="status">
      {t.offline} {when}
    </p>
  );
}
