/**
 * A product's SBOM in and out: **Upload SBOM** (a file straight to load_sboms, or a large one to the
 * presigned upload URL with progress bars for the upload and the import), the import summary, and
 * **Download SBOM** as CycloneDX or SPDX (fetched with the key in the Authorization header, saved as a Blob).
 */
import { useRef, useState } from 'preact/hooks';
import { ErrorSummary, formatDate, useAction } from '../components.tsx';
import { ApiError } from '../lib/api-client.ts';
import {
  IMPORT_STEPS,
  directUploadLimit,
  downloadFileName,
  type DownloadKind,
  SBOM_DOWNLOADS,
  SBOM_FILE_ACCEPT,
  type SbomDownloadKind,
  importProgress,
  putWithProgress,
  sbomMediaType,
  uploadMediaType,
  uploadRoute,
} from '../lib/sbom-upload.ts';
import { displayPurl } from '../lib/catalog-display.ts';
import type { Session } from '../session.ts';
import type { Product } from './types.ts';

export interface ImportSummary {
  readonly components: number;
  readonly packages_created: number;
  readonly packages_matched: number;
  readonly packages_updated: number;
  readonly added: number;
  readonly removed: number;
  readonly unchanged: number;
  readonly skipped: readonly { readonly component: string; readonly name: string; readonly reason: string }[];
  readonly unknown_licenses: readonly string[];
  readonly vulnerabilities: number;
  readonly analyses: number;
}

export interface SbomImport {
  readonly uuid: string;
  readonly status: 'queued' | 'running' | 'completed' | 'failed';
  readonly format: 'cyclonedx' | 'spdx' | 'openvex' | null;
  readonly spec_version: string | null;
  readonly mode: 'replace' | 'merge';
  readonly errors: readonly string[];
  readonly completed_date: string | null;
  readonly summary: ImportSummary | null;
}

interface SbomUpload extends SbomImport {
  readonly upload: { readonly url: string; readonly method: 'PUT'; readonly headers: Readonly<Record<string, string>>; readonly max_bytes: number };
}

type Stage = { kind: 'idle' } | { kind: 'sending'; file: string } | { kind: 'uploading'; file: string; sent: number; total: number } | { kind: 'importing'; file: string; status: string };

const POLL_MS = 1_000;
const POLL_LIMIT_MS = 15 * 60_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function SbomPanel({
  session,
  product,
  canChange,
  query,
  onImported,
}: {
  session: Session;
  product: Product;
  /** Upload SBOM only for who may change the product (`change_product`); downloads for every viewer. */
  canChange: boolean;
  query: URLSearchParams;
  onImported: () => void;
}) {
  const [mode, setMode] = useState<'replace' | 'merge'>('replace');
  const [stage, setStage] = useState<Stage>({ kind: 'idle' });
  const [result, setResult] = useState<{ file: string; answer: SbomImport } | undefined>();
  const picker = useRef<HTMLInputElement>(null);
  const limit = directUploadLimit(query);
  const base = `/api/v2/products/${product.uuid}`;

  const upload = useAction(async (file: File) => {
    setResult(undefined);
    let answer: SbomImport;
    if (uploadRoute(file.size, limit) === 'direct') {
      setStage({ kind: 'sending', file: file.name });
      answer = await session.api.postDocument<SbomImport>(`${base}/load_sboms/?mode=${mode}`, await file.text(), sbomMediaType(file.name));
    } else {
      setStage({ kind: 'uploading', file: file.name, sent: 0, total: file.size });
      const started = await session.api.post<SbomUpload>(`${base}/sbom_uploads/`, { mode, content_type: uploadMediaType(file.name), size: file.size });
      try {
        await putWithProgress(started.upload.url, started.upload.headers, file, (sent, total) => setStage({ kind: 'uploading', file: file.name, sent, total }));
      } catch (error) {
        throw new ApiError(0, { detail: error instanceof Error ? error.message : String(error) });
      }
      answer = started;
      const deadline = Date.now() + POLL_LIMIT_MS;
      while (answer.status === 'queued' || answer.status === 'running') {
        setStage({ kind: 'importing', file: file.name, status: answer.status });
        if (Date.now() > deadline) throw new ApiError(0, { detail: 'The import is taking long: it goes on; reload the page later to see its packages.' });
        await sleep(POLL_MS);
        answer = await session.api.get<SbomImport>(`/api/v2/sbom_imports/${started.uuid}/`);
      }
      setStage({ kind: 'importing', file: file.name, status: answer.status });
    }
    setResult({ file: file.name, answer });
    onImported();
  });

  const [format, setFormat] = useState<SbomDownloadKind>('cyclonedx');
  const [noticeFormat, setNoticeFormat] = useState<'html' | 'text'>('html');
  const [downloaded, setDownloaded] = useState<string | undefined>();
  const save = async (path: string, kind: DownloadKind) => {
    setDownloaded(undefined);
    const document = await session.api.getDocument(path);
    const name = downloadFileName(document.disposition, product, kind);
    const blob = new Blob([document.text], { type: document.contentType ?? 'application/json' });
    const url = URL.createObjectURL(blob);
    const link = window.document.createElement('a');
    link.href = url;
    link.download = name;
    link.hidden = true;
    window.document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
    setDownloaded(`Downloaded ${name}.`);
  };
  const download = useAction(() => save(`${base}/${SBOM_DOWNLOADS.find((choice) => choice.kind === format)!.path}`, format));
  // The attribution notice: the deployed packages, their licenses and each license's text (GET …/attribution/).
  const downloadNotice = useAction(() => save(`${base}/attribution/?format=${noticeFormat}`, noticeFormat === 'html' ? 'attribution-html' : 'attribution-text'));

  const busy = upload.running;
  return (
    <section class="sbom-panel" aria-labelledby="sbom-heading">
      <h2 id="sbom-heading">SBOM</h2>
      <div class="sbom-actions">
        {canChange && (
          <form
            class="sbom-upload"
            onSubmit={(event) => {
              event.preventDefault();
              picker.current?.click();
            }}
          >
            <fieldset>
              <legend>When the SBOM is loaded</legend>
              <label class="choice">
                <input type="radio" name="sbom-mode" value="replace" checked={mode === 'replace'} onChange={() => setMode('replace')} /> Replace
                <span class="hint">the product's packages become exactly the SBOM's</span>
              </label>
              <label class="choice">
                <input type="radio" name="sbom-mode" value="merge" checked={mode === 'merge'} onChange={() => setMode('merge')} /> Merge
                <span class="hint">add and update, remove nothing</span>
              </label>
            </fieldset>
            <input
              ref={picker}
              type="file"
              hidden
              aria-label="SBOM file"
              accept={SBOM_FILE_ACCEPT}
              onChange={(event) => {
                const file = event.currentTarget.files?.[0];
                event.currentTarget.value = '';
                if (file) void upload.run(file);
              }}
            />
            <button type="submit" disabled={busy} aria-describedby="sbom-upload-hint">
              Upload SBOM
            </button>
            <span id="sbom-upload-hint" class="hint">
              CycloneDX JSON or XML, SPDX JSON, tag-value or 3.0, OpenVEX. Files over {formatBytes(limit)} go through the upload URL (up to 50 MB).
            </span>
          </form>
        )}
        <form
          class="sbom-download"
          onSubmit={(event) => {
            event.preventDefault();
            void download.run();
          }}
        >
          <div class="field">
            <label for="sbom-format">Download format</label>
            <select id="sbom-format" value={format} onChange={(event) => setFormat(event.currentTarget.value as SbomDownloadKind)}>
              {SBOM_DOWNLOADS.map((choice) => (
                <option key={choice.kind} value={choice.kind}>
                  {choice.label}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="secondary" disabled={download.running}>
            Download SBOM
          </button>
        </form>
        <form
          class="sbom-download"
          onSubmit={(event) => {
            event.preventDefault();
            void downloadNotice.run();
          }}
        >
          <div class="field">
            <label for="notice-format">Attribution format</label>
            <select id="notice-format" value={noticeFormat} onChange={(event) => setNoticeFormat(event.currentTarget.value as 'html' | 'text')}>
              <option value="html">HTML page</option>
              <option value="text">Plain text (NOTICE)</option>
            </select>
          </div>
          <button type="submit" class="secondary" disabled={downloadNotice.running}>
            Download attribution
          </button>
        </form>
      </div>
      <div aria-live="polite" class="progress-area">
        {busy && <UploadProgress stage={stage} />}
        {downloaded && !download.running && !downloadNotice.running && (
          <p role="status" class="notice notice-success">
            {downloaded}
          </p>
        )}
      </div>
      <ErrorSummary error={upload.error} title="The SBOM was not loaded." />
      <ErrorSummary error={download.error} title="The SBOM could not be downloaded." />
      <ErrorSummary error={downloadNotice.error} title="The attribution notice could not be downloaded." />
      {result && <ImportSummaryView file={result.file} answer={result.answer} />}
    </section>
  );
}

function formatBytes(bytes: number): string {
  if (bytes >= 1_000_000) return `${(bytes / 1_000_000).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
  return `${Math.round(bytes / 1000).toLocaleString()} KB`;
}

function UploadProgress({ stage }: { stage: Stage }) {
  if (stage.kind === 'sending') {
    return (
      <p role="status" class="progress">
        <progress aria-label="Import progress" /> Loading {stage.file}…
      </p>
    );
  }
  if (stage.kind === 'uploading') {
    const percent = stage.total > 0 ? Math.round((stage.sent / stage.total) * 100) : 0;
    return (
      <p role="status" class="progress">
        <progress aria-label="Upload progress" max={stage.total || 1} value={stage.sent} /> Uploading {stage.file}: {percent}%
      </p>
    );
  }
  if (stage.kind === 'importing') {
    const step = importProgress(stage.status);
    return (
      <>
        <p class="progress">
          <progress aria-label="Upload progress" max={1} value={1} /> Uploaded {stage.file}
        </p>
        <p role="status" class="progress">
          <progress aria-label="Import progress" max={IMPORT_STEPS} value={step.value} /> {step.text}…
        </p>
      </>
    );
  }
  return null;
}

/** What an import did, from its answer: the figures, the skipped components with their reasons, the unknown licenses. */
export function ImportSummaryView({ file, answer }: { file: string; answer: SbomImport }) {
  const summary = answer.summary;
  return (
    <section class="import-summary" aria-labelledby="import-summary-heading">
      <h3 id="import-summary-heading">Import summary</h3>
      <p role={answer.status === 'failed' ? 'alert' : 'status'} class={`notice ${answer.status === 'failed' ? 'notice-error' : 'notice-success'}`}>
        {file}: {answer.status === 'failed' ? 'the import failed' : `imported (${answer.format === 'spdx' ? 'SPDX' : answer.format === 'openvex' ? 'OpenVEX' : 'CycloneDX'} ${answer.spec_version ?? ''}, ${answer.mode})`}
        {answer.completed_date ? `, ${formatDate(answer.completed_date)}` : ''}.
      </p>
      {answer.errors.length > 0 && (
        <ul class="plain" aria-label="Import errors">
          {answer.errors.map((error) => (
            <li key={error}>{error}</li>
          ))}
        </ul>
      )}
      {summary && (
        <>
          <dl class="details summary-figures">
            <dt>Added</dt>
            <dd data-figure="added">{summary.added}</dd>
            <dt>Removed</dt>
            <dd data-figure="removed">{summary.removed}</dd>
            <dt>Unchanged</dt>
            <dd data-figure="unchanged">{summary.unchanged}</dd>
            <dt>Skipped</dt>
            <dd data-figure="skipped">{summary.skipped.length}</dd>
            <dt>Unknown licenses</dt>
            <dd data-figure="unknown_licenses">{summary.unknown_licenses.length}</dd>
            <dt>Components read</dt>
            <dd data-figure="components">
              {summary.components} ({summary.packages_created} new to the catalog, {summary.packages_matched} already in it)
            </dd>
            <dt>Vulnerabilities</dt>
            <dd data-figure="vulnerabilities">
              {summary.vulnerabilities} ({summary.analyses} {summary.analyses === 1 ? 'analysis' : 'analyses'})
            </dd>
          </dl>
          {summary.skipped.length > 0 && (
            <>
              <h4>Skipped components</h4>
              <div class="table-wrap" tabIndex={0} role="region" aria-label="Skipped components (scrolls sideways)">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Component</th>
                      <th scope="col">Reason</th>
                    </tr>
                  </thead>
                  <tbody>
                    {summary.skipped.map((skip, index) => (
                      <tr key={`${skip.component}#${index}`}>
                        <td class="break" title={skip.name !== skip.component ? `In the document: ${skip.component}` : undefined}>
                          {displayPurl(skip.name)}
                        </td>
                        <td>{skip.reason}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            </>
          )}
          {summary.unknown_licenses.length > 0 && (
            <>
              <h4>Unknown licenses</h4>
              <ul class="plain unknown-licenses" aria-label="Unknown licenses">
                {summary.unknown_licenses.map((license) => (
                  <li key={license}>
                    <code>{license}</code>
                  </li>
                ))}
              </ul>
            </>
          )}
        </>
      )}
    </section>
  );
}
