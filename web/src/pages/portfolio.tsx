/**
 * The policy portfolio (superusers): products by gate (each count links to the product list filtered
 * by it), the rules most violated, and "Violations over time" as a uPlot chart (loaded on demand: a
 * chunk of its own) with the same days as a table on request. The days select is kept in the address.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type * as z from 'zod';
import type { PortfolioSchema } from '../../../shared/schemas/portfolio.ts';
import { ErrorSummary, GATE_TEXT, GateBadge, Loading, Notice, PageHeading, SeverityBadge, useLoad, type GateValue } from '../components.tsx';
import type { ChartDay, DrawnChart } from '../lib/violations-chart.ts';
import { href, navigate } from '../router.ts';
import type { Session } from '../session.ts';

type PortfolioAnswer = z.output<typeof PortfolioSchema>;

const DAY_CHOICES = [7, 30, 90] as const;
const CHART_NAME = 'Violations over time';

export function Portfolio({ session, query }: { session: Session; query: URLSearchParams }) {
  if (!session.isSuperuser) {
    return (
      <>
        <PageHeading>Portfolio</PageHeading>
        <Notice kind="info">The portfolio is for superusers only: it counts every product of the dataspace. Your products and their gates are on the Products page.</Notice>
        <p>
          <a href={href(['products'])}>Go to Products</a>
        </p>
      </>
    );
  }
  return <PortfolioReport session={session} query={query} />;
}

function PortfolioReport({ session, query }: { session: Session; query: URLSearchParams }) {
  const asked = Number(query.get('days'));
  const days = (DAY_CHOICES as readonly number[]).includes(asked) ? asked : 30;
  const report = useLoad(() => session.api.get<PortfolioAnswer>('/api/v2/policy_portfolio/', { days }), String(days));
  const data = report.data;
  return (
    <>
      <PageHeading>Portfolio</PageHeading>
      {report.error && <ErrorSummary error={report.error} />}
      {report.loading && !data && <Loading what="the portfolio" />}
      {data && (
        <>
          <section aria-labelledby="by-gate">
            <h2 id="by-gate">Products by gate</h2>
            <ul class="gate-cards">
              {(Object.keys(GATE_TEXT) as GateValue[]).map((gate) => (
                <li key={gate}>
                  <a class={`card-${gate}`} href={href(['products'], { gate })}>
                    <span class="gate-count">{data.products_by_gate[gate]}</span>
                    <GateBadge gate={gate === 'none' ? null : gate} />
                    <span class="visually-hidden"> – {data.products_by_gate[gate] === 1 ? 'product' : 'products'}, show them</span>
                  </a>
                </li>
              ))}
            </ul>
          </section>
          <section aria-labelledby="top-rules">
            <h2 id="top-rules">Top violated rules</h2>
            {data.top_rules.length === 0 ? (
              <p>No product is in active violation of any rule.</p>
            ) : (
              // Focusable, so a keyboard can scroll it when it is wider than a phone (it holds no link to focus).
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Top violated rules (scrolls sideways)">
                <table>
                  <caption class="visually-hidden">Top violated rules: the rules with the most products in active violation</caption>
                  <thead>
                    <tr>
                      <th scope="col">Rule</th>
                      <th scope="col">Severity</th>
                      <th scope="col">Products</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.top_rules.map((rule) => (
                      <tr key={rule.rule_type}>
                        <th scope="row">{rule.label}</th>
                        <td>
                          <SeverityBadge severity={rule.severity} />
                        </td>
                        <td>{rule.products}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </section>
          <ViolationsOverTime days={data.days} chosen={days} />
        </>
      )}
    </>
  );
}

function ViolationsOverTime({ days, chosen }: { days: readonly ChartDay[]; chosen: number }) {
  const [tableShown, setTableShown] = useState(false);
  return (
    <section aria-labelledby="over-time">
      <h2 id="over-time">{CHART_NAME}</h2>
      <div class="filters">
        <div class="field">
          <label for="portfolio-days">Days</label>
          <select id="portfolio-days" value={String(chosen)} onChange={(event) => navigate(['portfolio'], { days: event.currentTarget.value })}>
            {DAY_CHOICES.map((choice) => (
              <option key={choice} value={String(choice)}>
                Last {choice} days
              </option>
            ))}
          </select>
        </div>
      </div>
      <Chart days={days} />
      <p>
        <button type="button" class="secondary" aria-expanded={tableShown} aria-controls="violations-table" onClick={() => setTableShown(!tableShown)}>
          {tableShown ? 'Hide the table' : 'Show the data as a table'}
        </button>
      </p>
      <div id="violations-table" hidden={!tableShown}>
        {tableShown && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label={`${CHART_NAME} as a table (scrolls sideways)`}>
            <table>
              <caption class="visually-hidden">{CHART_NAME}, one row a day (UTC)</caption>
              <thead>
                <tr>
                  <th scope="col">Day</th>
                  <th scope="col">Detected</th>
                  <th scope="col">Resolved</th>
                  <th scope="col">Active at end of day</th>
                </tr>
              </thead>
              <tbody>
                {days.map((day) => (
                  <tr key={day.date}>
                    <th scope="row">{day.date}</th>
                    <td>{day.detected}</td>
                    <td>{day.resolved}</td>
                    <td>{day.active}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </div>
    </section>
  );
}

/** The chart, drawn once uPlot's chunk has loaded, as wide as its frame (redrawn to fit when the window changes). */
function Chart({ days }: { days: readonly ChartDay[] }) {
  const frame = useRef<HTMLDivElement>(null);
  const [failed, setFailed] = useState<string | undefined>();
  const [series, setSeries] = useState<readonly { label: string; stroke: string; dash?: readonly number[] | undefined }[]>([]);
  useEffect(() => {
    let chart: DrawnChart | undefined;
    let cancelled = false;
    const width = () => Math.max(200, (frame.current?.clientWidth ?? 320) - 24);
    const onResize = () => chart?.resize(width());
    import('../lib/violations-chart.ts').then(
      ({ drawViolationsChart, CHART_SERIES }) => {
        if (cancelled || !frame.current) return;
        frame.current.replaceChildren();
        chart = drawViolationsChart(frame.current, days, width(), `${CHART_NAME}: detected, resolved and active violations per day; the same data is in the table below`);
        setSeries(CHART_SERIES);
        window.addEventListener('resize', onResize);
      },
      (error: unknown) => setFailed(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      cancelled = true;
      window.removeEventListener('resize', onResize);
      chart?.destroy();
    };
  }, [days]);
  return (
    <figure class="chart-figure" style={{ margin: 0 }}>
      <div class="chart-frame" ref={frame}>
        {!failed && series.length === 0 && <p class="loading" role="status">Loading the chart…</p>}
      </div>
      {failed && <ErrorSummary error={{ general: [`The chart could not be drawn (${failed}); the table has the same data.`], fields: {} }} />}
      {series.length > 0 && (
        <figcaption>
          <ul class="chart-legend" aria-label="Chart legend">
            {series.map((line) => (
              <li key={line.label}>
                <span class="swatch" aria-hidden="true" style={{ borderTopColor: line.stroke, borderTopStyle: line.dash ? (line.dash[0]! > 4 ? 'dashed' : 'dotted') : 'solid' }} />
                {line.label} ({line.dash ? (line.dash[0]! > 4 ? 'dashed line' : 'dotted line') : 'solid line'})
              </li>
            ))}
          </ul>
        </figcaption>
      )}
    </figure>
  );
}
