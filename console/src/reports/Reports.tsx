import { useSignal } from '@preact/signals';
import type { TargetedEvent } from 'preact';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../api/client.js';
import type { Report } from '../api/types.js';
import { fill, type Locale } from '../i18n/t.js';
import { useStore, useStrings } from '../state/context.js';
import { CountBars, DayBars, ScoreBar } from './charts.js';
import { reportStrings, type ReportStrings } from './strings.js';
import './reports.css';

/** The filters the report takes, as the URL's query holds them (a report is a link one can share). */
const FILTERS = ['from', 'to', 'category', 'agent', 'tag'] as const;
type Filter = (typeof FILTERS)[number];
type Filters = Record<Filter, string>;

const pick = (query: Record<string, string | undefined>): Filters =>
  Object.fromEntries(FILTERS.map((f) => [f, query[f] ?? ''])) as Filters;

/** Minutes as the two largest units: "3 days 4 hr", "1 hr 40 min", "12 min", "0.5 min". */
function duration(minutes: number | null, locale: Locale, none: string): string {
  if (minutes === null) return none;
  const unit = (n: number, u: 'day' | 'hour' | 'minute') =>
    new Intl.NumberFormat(locale, { style: 'unit', unit: u, unitDisplay: 'short', maximumFractionDigits: 1 }).format(n);
  if (minutes < 60) return unit(minutes, 'minute');
  const total = Math.round(minutes);
  const days = Math.floor(total / 1440);
  const hours = Math.floor((total % 1440) / 60);
  const mins = total % 60;
  if (days) return hours ? `${unit(days, 'day')} ${unit(hours, 'hour')}` : unit(days, 'day');
  return mins ? `${unit(hours, 'hour')} ${unit(mins, 'minute')}` : unit(hours, 'hour');
}

/** Reports (issue 15): the figures of GET /v1/reports as charts with their tables, filters, a CSV download. */
export function Reports() {
  const s = useStore();
  const r = useStrings(reportStrings);
  const { query, route } = useLocation();
  const applied = pick(query);
  const form = useSignal<Filters>(applied);
  const report = useSignal<Report | null>(null);
  const errors = useSignal<Partial<Record<Filter, string>>>({});
  const failure = useSignal('');
  const loading = useSignal(false);
  const key = FILTERS.map((f) => applied[f]).join('\n');

  useEffect(() => {
    s.title.value = r.title;
    return () => (s.title.value = '');
  }, [r.title]);

  useEffect(() => {
    form.value = applied;
    let current = true;
    loading.value = true;
    s.api
      .report(applied)
      .then((answer) => {
        if (!current) return;
        report.value = answer;
        // The dates the server took (its defaults when none were asked for) stand in the form.
        form.value = { ...applied, from: applied.from || answer.period.from, to: applied.to || answer.period.to };
        errors.value = {};
        failure.value = '';
      })
      .catch((err: unknown) => {
        if (!current) return;
        const fields: Partial<Record<Filter, string>> = {};
        if (err instanceof ApiError)
          for (const d of err.details)
            if ((FILTERS as readonly string[]).includes(d.param)) fields[d.param as Filter] = d.message;
        errors.value = fields;
        failure.value = Object.keys(fields).length ? '' : `${r.loadFailed} ${s.describe(err)}`;
      })
      .finally(() => current && (loading.value = false));
    return () => void (current = false);
  }, [key]);

  const show = (next: Filters) => {
    const params = new URLSearchParams(Object.entries(next).filter(([, v]) => v !== ''));
    route(`/console/reports${params.size ? `?${params}` : ''}`);
  };
  const set = (f: Filter) => (e: TargetedEvent<HTMLInputElement | HTMLSelectElement, Event>) =>
    (form.value = { ...form.value, [f]: e.currentTarget.value });
  const submit = (e: Event) => {
    e.preventDefault();
    show(form.value);
  };

  const categories = s.meta.value?.categories ?? [];
  const me = s.me.value!;
  const agents = s.agents.value.filter((a) => a.id !== me.id);
  const data = report.value;
  const fieldError = (f: Filter) => errors.value[f];
  const described = (f: Filter) => (fieldError(f) ? `report-${f}-err` : undefined);

  return (
    <main id="main" class="reports" tabIndex={-1} aria-busy={loading.value}>
      <h1>{r.title}</h1>
      <form class="card report-filters" onSubmit={submit} noValidate aria-label={r.filters}>
        {(['from', 'to'] as const).map((f) => (
          <div class="field" key={f}>
            <label for={`report-${f}`}>{r[f]}</label>
            <input
              id={`report-${f}`}
              type="date"
              value={form.value[f]}
              onInput={set(f)}
              aria-invalid={fieldError(f) ? 'true' : undefined}
              aria-describedby={described(f)}
            />
            {fieldError(f) && (
              <p class="err" id={`report-${f}-err`}>
                {fieldError(f)}
              </p>
            )}
          </div>
        ))}
        <div class="field">
          <label for="report-category">{r.category}</label>
          <select
            id="report-category"
            value={form.value.category}
            onChange={set('category')}
            aria-invalid={fieldError('category') ? 'true' : undefined}
            aria-describedby={described('category')}
          >
            <option value="">{r.any}</option>
            {categories.map((c) => (
              <option value={c.id}>{c.name}</option>
            ))}
          </select>
          {fieldError('category') && (
            <p class="err" id="report-category-err">
              {fieldError('category')}
            </p>
          )}
        </div>
        <div class="field">
          <label for="report-agent">{r.agent}</label>
          <select
            id="report-agent"
            value={form.value.agent}
            onChange={set('agent')}
            aria-invalid={fieldError('agent') ? 'true' : undefined}
            aria-describedby={described('agent')}
          >
            <option value="">{r.any}</option>
            <option value="none">{r.unassigned}</option>
            <option value={me.id}>
              {r.me} ({me.name})
            </option>
            {agents.map((a) => (
              <option value={a.id}>{a.name}</option>
            ))}
          </select>
          {fieldError('agent') && (
            <p class="err" id="report-agent-err">
              {fieldError('agent')}
            </p>
          )}
        </div>
        <div class="field">
          <label for="report-tag">{r.tag}</label>
          <input
            id="report-tag"
            list="report-tags"
            value={form.value.tag}
            placeholder={r.anyTag}
            onInput={set('tag')}
            aria-invalid={fieldError('tag') ? 'true' : undefined}
            aria-describedby={described('tag')}
          />
          <datalist id="report-tags">
            {s.tagDefs.value.map((tag) => (
              <option value={tag.name} />
            ))}
          </datalist>
          {fieldError('tag') && (
            <p class="err" id="report-tag-err">
              {fieldError('tag')}
            </p>
          )}
        </div>
        <div class="actions">
          <button type="submit" class="btn primary">
            {r.apply}
          </button>
          <button type="button" class="btn ghost" onClick={() => show(pick({}))}>
            {r.reset}
          </button>
          <a class="btn" href={s.api.reportCsvUrl(applied)} download>
            {r.download}
          </a>
        </div>
        {data && <p class="hint period-hint">{fill(r.periodHint, { tz: data.period.timezone })}</p>}
      </form>
      {failure.value && (
        <p class="err banner" role="alert">
          {failure.value}
        </p>
      )}
      {data && <Figures data={data} r={r} locale={s.locale.value} statusName={s.statusName} />}
    </main>
  );
}

function Figures({
  data,
  r,
  locale,
  statusName,
}: {
  data: Report;
  r: ReportStrings;
  locale: Locale;
  statusName: (id: string) => string;
}) {
  const num = (n: number | null, digits = 0) =>
    n === null ? r.none : new Intl.NumberFormat(locale, { maximumFractionDigits: digits }).format(n);
  const time = (m: number | null) => duration(m, locale, r.none);
  const day = (date: string, long = false) =>
    new Intl.DateTimeFormat(locale, {
      day: 'numeric',
      month: long ? 'short' : 'numeric',
      ...(long ? { weekday: 'short' } : {}),
      // A report's day is a calendar date (in the portal's zone): shown as such, never shifted.
      timeZone: 'UTC',
    }).format(new Date(`${date}T00:00:00Z`));
  const rated = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso));
  const { sla, csat, backlog } = data;

  return (
    <>
      <section class="tiles" aria-label={r.summary}>
        <Tile label={r.opened} value={num(data.totals.opened)} />
        <Tile label={r.closed} value={num(data.totals.closed)} />
        <Tile
          label={r.firstResponse}
          value={time(data.first_response.median_minutes)}
          note={`${r.p90}: ${time(data.first_response.p90_minutes)}`}
        />
        <Tile
          label={r.resolution}
          value={time(data.resolution.median_minutes)}
          note={`${r.p90}: ${time(data.resolution.p90_minutes)}`}
        />
        <Tile
          label={r.slaBreaches}
          value={sla.enabled ? num(sla.breached_tickets) : r.none}
          note={sla.enabled ? `${r.slaTickets}: ${num(sla.tickets)}` : r.slaOff}
        />
        <Tile
          label={r.csat}
          value={csat.average === null ? r.none : `${num(csat.average, 2)} / 5`}
          note={`${r.ratings}: ${num(csat.count)}`}
        />
      </section>

      <section class="card chart-card" aria-labelledby="report-days">
        <h2 id="report-days">{r.perDay}</h2>
        <p class="legend" aria-hidden="true">
          <span class="key opened" /> {r.opened} <span class="key closed" /> {r.closed}
        </p>
        <div class="chart-with-table">
          <DayBars
            days={data.days}
            dayLabel={(d) => day(d)}
            tip={(d) => `${day(d.date, true)}: ${r.opened} ${num(d.opened)}, ${r.closed} ${num(d.closed)}`}
          />
          <div class="table-scroll" tabIndex={0} aria-labelledby="report-days">
            <table>
              <caption class="sr">{r.perDay}</caption>
              <thead>
                <tr>
                  <th scope="col">{r.date}</th>
                  <th scope="col">{r.opened}</th>
                  <th scope="col">{r.closed}</th>
                </tr>
              </thead>
              <tbody>
                {data.days.map((d) => (
                  <tr key={d.date}>
                    <th scope="row">{day(d.date, true)}</th>
                    <td>{num(d.opened)}</td>
                    <td>{num(d.closed)}</td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <th scope="row">{r.total}</th>
                  <td>{num(data.totals.opened)}</td>
                  <td>{num(data.totals.closed)}</td>
                </tr>
              </tfoot>
            </table>
          </div>
        </div>
      </section>

      <div class="report-grid">
        <section class="card" aria-labelledby="report-times">
          <h2 id="report-times">
            {r.firstResponse} · {r.resolution}
          </h2>
          <table class="figures">
            <thead>
              <tr>
                <th scope="col">{r.figure}</th>
                <th scope="col">{r.firstResponse}</th>
                <th scope="col">{r.resolution}</th>
              </tr>
            </thead>
            <tbody>
              <tr>
                <th scope="row">{r.median}</th>
                <td>{time(data.first_response.median_minutes)}</td>
                <td>{time(data.resolution.median_minutes)}</td>
              </tr>
              <tr>
                <th scope="row">{r.p90}</th>
                <td>{time(data.first_response.p90_minutes)}</td>
                <td>{time(data.resolution.p90_minutes)}</td>
              </tr>
              <tr>
                <th scope="row">{r.tickets}</th>
                <td>{num(data.first_response.count)}</td>
                <td>{num(data.resolution.count)}</td>
              </tr>
            </tbody>
          </table>
          <p class="hint">{data.business_hours ? r.businessHours : r.calendarHours}</p>
          <h3>{r.slaBreaches}</h3>
          {sla.enabled ? (
            <table class="figures">
              <tbody>
                <tr>
                  <th scope="row">{r.slaTickets}</th>
                  <td>{num(sla.tickets)}</td>
                </tr>
                <tr>
                  <th scope="row">{r.slaFirst}</th>
                  <td>{num(sla.first_response_breaches)}</td>
                </tr>
                <tr>
                  <th scope="row">{r.slaResolution}</th>
                  <td>{num(sla.resolution_breaches)}</td>
                </tr>
                <tr>
                  <th scope="row">{r.slaBreached}</th>
                  <td>{num(sla.breached_tickets)}</td>
                </tr>
              </tbody>
            </table>
          ) : (
            <p class="muted">{r.slaOff}</p>
          )}
        </section>

        <section class="card" aria-labelledby="report-backlog">
          <h2 id="report-backlog">{r.backlog}</h2>
          <CountBars rows={backlog.statuses.map((b) => ({ label: statusName(b.status) || b.name, count: b.count }))} />
          <table class="figures">
            <caption class="sr">{r.backlog}</caption>
            <thead>
              <tr>
                <th scope="col">{r.status}</th>
                <th scope="col">{r.count}</th>
              </tr>
            </thead>
            <tbody>
              {backlog.statuses.map((b) => (
                <tr key={b.status}>
                  <th scope="row">{statusName(b.status) || b.name}</th>
                  <td>{num(b.count)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{r.total}</th>
                <td>{num(backlog.total)}</td>
              </tr>
            </tfoot>
          </table>
        </section>
      </div>

      <section class="card" aria-labelledby="report-csat">
        <h2 id="report-csat">{r.csat}</h2>
        {csat.count === 0 ? (
          <p class="muted">{r.noRatings}</p>
        ) : (
          <>
            <p class="csat-average">
              {r.average}: <strong>{num(csat.average, 2)} / 5</strong> ({r.ratings}: {num(csat.count)})
            </p>
            <ScoreBar distribution={csat.distribution} />
          </>
        )}
        <table class="figures">
          <caption class="sr">{r.csat}</caption>
          <thead>
            <tr>
              <th scope="col">{r.score}</th>
              <th scope="col">{r.count}</th>
            </tr>
          </thead>
          <tbody>
            {csat.distribution.map((d) => (
              <tr key={d.score}>
                <th scope="row">
                  <span class={`key s${d.score}`} aria-hidden="true" /> {fill(r.stars, { n: d.score })}
                </th>
                <td>{num(d.count)}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h3>{r.comments}</h3>
        {csat.comments.length ? (
          <ul class="comments">
            {csat.comments.map((c) => (
              <li key={c.ticket_id}>
                <p class="comment-meta">
                  <a href={`/console/tickets/${c.ticket_id}`}>{c.subject}</a>
                  <span class="muted">
                    {' '}
                    · {fill(r.stars, { n: c.score })} · {rated(c.rated_at)}
                  </span>
                </p>
                <blockquote>{c.comment}</blockquote>
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">{r.noComments}</p>
        )}
      </section>

      <section class="card" aria-labelledby="report-helpful">
        <h2 id="report-helpful">{r.helpful}</h2>
        {data.kb_feedback.articles.length ? (
          <table class="figures">
            <caption class="sr">{r.helpful}</caption>
            <thead>
              <tr>
                <th scope="col">{r.article}</th>
                <th scope="col">{r.yes}</th>
                <th scope="col">{r.no}</th>
              </tr>
            </thead>
            <tbody>
              {data.kb_feedback.articles.map((a) => (
                <tr key={a.article_id}>
                  <th scope="row">{a.title ?? r.deletedArticle}</th>
                  <td>{num(a.helpful)}</td>
                  <td>{num(a.not_helpful)}</td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{r.total}</th>
                <td>{num(data.kb_feedback.helpful)}</td>
                <td>{num(data.kb_feedback.not_helpful)}</td>
              </tr>
            </tfoot>
          </table>
        ) : (
          <p class="muted">{r.noVotes}</p>
        )}
      </section>
    </>
  );
}

function Tile({ label, value, note }: { label: string; value: string; note?: string }) {
  return (
    <div class="tile">
      <p class="tile-label">{label}</p>
      <p class="tile-value">{value}</p>
      {note && <p class="tile-note">{note}</p>}
    </div>
  );
}
