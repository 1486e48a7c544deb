import type { InspectRollout, ObjectiveSettings } from '../../../../workers/protocol.ts';
import { aggregationText, lossTypes } from '../../../rl/loss-types.ts';
import { objectiveForm, objectiveForms } from '../../../rl/objective-form.ts';
import { deriveAdvantage } from '../../derive/advantage-derivation.ts';
import { num } from '../../derive/channels.ts';

/** The ratio line of the importance-sampling level, then the form's obj line (objective-form.ts). */
function formulaLines(s: ObjectiveSettings): string {
  const seq = s.importance_sampling_level === 'sequence';
  const ratio =
    'ratio  = ' +
    (seq ? 'exp(mean over the sequence of (logp − old))   (sequence level, GSPO)' : 'exp(logp − old)   (token level)');
  return objectiveForms[objectiveForm(s.loss_type)].formula(ratio);
}

/**
 * Where A comes from: the group's rewards, their mean and std, and the estimator's formula with the numbers
 * (advantage-derivation.ts).
 */
function AdvantageFromRewards({ r, s, all }: { r: InspectRollout; s: ObjectiveSettings; all: InspectRollout[] }) {
  const d = deriveAdvantage(all, r, s);
  return (
    <div
      className="advantage-derivation"
      data-testid="obj-advantage-derivation"
      data-value={d.value}
      data-matches={d.matches}
    >
      <p>
        group {r.group}&apos;s rewards (G = {d.rewards.length}):{' '}
        <span data-testid="obj-group-rewards">
          {d.rewards.map((x, j) => (
            <span key={j} className={j === d.self ? 'this-reward' : undefined}>
              {j > 0 ? ', ' : ''}
              {j === d.self ? <strong>{num(x, 4)}</strong> : num(x, 4)}
            </span>
          ))}
        </span>{' '}
        (this completion in bold); mean <span data-testid="obj-group-mean">{num(d.mean, 4)}</span>, std{' '}
        <span data-testid="obj-group-std">{num(d.std, 4)}</span>
        {d.divisor?.kind === 'batch' && `, std of the step's batch ${num(d.divisor.std, 4)}`}
        <span className="small" data-testid="obj-std-convention">
          {' '}
          (every std here is the sample standard deviation: the squared deviations are summed and divided by n − 1
          {d.rewards.length > 1 ? ` = ${d.rewards.length - 1} for this group` : ''}, not by n, as torch.std and TRL
          compute it)
        </span>
      </p>
      <pre className="formula" data-testid="obj-advantage-formula">
        {d.formula}
        {'\n'}
        {d.substituted}
      </pre>
      <p className="small">
        {d.matches
          ? '✓ the advantage the update used'
          : `≠ the recorded ${num(r.advantage, 6)} (this step's groups may have been refilled or hinted)`}
      </p>
    </div>
  );
}

/**
 * The objective of src/rl/objective.ts for the selected token, filled with the numbers the update
 * graph itself output for it (ratio, obj, kl, token loss, contribution): nothing is recomputed here.
 * The last line checks weight × token loss against the contribution the graph summed into the loss.
 */
export function ObjectivePanel({
  r,
  i,
  s,
  all,
}: {
  r: InspectRollout;
  i: number;
  s: ObjectiveSettings;
  all: InspectRollout[];
}) {
  const ratio = r.ratio[i]!;
  const A = r.advantage;
  const kl = r.kl[i]!;
  const H = r.entropy[i]!;
  const obj = r.objective[i]!;
  const token = r.tokenLoss[i]!;
  const w = r.weight[i]!;
  const theirs = r.lossContribution[i]!;
  const agree = Math.abs(w * token - theirs) <= 1e-5 + 1e-3 * Math.abs(theirs);
  const ref = r.refLogp?.[i];
  const seq = s.importance_sampling_level === 'sequence';
  const formName = objectiveForm(s.loss_type);
  const form = objectiveForms[formName];
  const clippedNote = form.clippedNote ?? ` — the clipped branch (${r.clipped[i]}): this token gives no gradient`;
  const masked = s.off_policy_mask_threshold !== null;
  const maskLine = masked
    ? 'keep   = A ≥ 0 or mean over the sequence of (old − ' +
      `logp) ≤ ${s.off_policy_mask_threshold}   (off-policy sequence mask)\n`
    : '';
  const tokenLine =
    `token  = −obj${masked ? ' · keep' : ''} + β · kl` +
    `${s.use_bias_correction_kl ? ' · ratio   (use_bias_correction_kl)' : ''} − entropy_coef · entropy`;
  return (
    <section className="objective" aria-label="Objective for the selected token" data-testid="objective-panel">
      <h3>
        Objective at token {i} <code>{JSON.stringify(r.tokenText[i])}</code>
      </h3>
      <pre className="formula" data-testid="objective-formula">
        {`${formulaLines(s)}
kl     = ${s.kl_estimator === 'k3' ? 'exp(ref − logp) − (ref − logp) − 1   (k3)' : 'logp − ref   (k1)'}
${maskLine}${tokenLine}
loss   = Σ weight · token`}
      </pre>
      <table className="objective-numbers">
        <tbody>
          <tr>
            <th scope="row">logp, old{ref !== undefined ? ', ref' : ''}</th>
            <td>
              {num(r.newLogp[i], 6)}, {num(r.oldLogp[i], 6)}
              {ref !== undefined ? `, ${num(ref, 6)}` : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">ratio</th>
            <td data-testid="obj-ratio">
              {num(ratio, 6)}
              {!seq && formName !== 'gmpo' && ` = exp(${num(r.newLogp[i], 4)} − ${num(r.oldLogp[i], 4)})`}
            </td>
          </tr>
          <tr>
            <th scope="row">{form.range ? 'clip range' : 'knobs'}</th>
            <td data-testid="obj-clipped">{form.knobLine(s, num)}</td>
          </tr>
          <tr>
            <th scope="row">advantage A</th>
            <td>
              <span data-testid="obj-advantage">{num(A, 6)}</span>
              <AdvantageFromRewards r={r} s={s} all={all} />
            </td>
          </tr>
          <tr>
            <th scope="row">obj</th>
            <td data-testid="obj-obj">
              {num(obj, 6)}
              {r.clipped[i] ? clippedNote : form.range ? ' — the unclipped branch' : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">KL term</th>
            <td data-testid="obj-kl">
              β = {num(s.beta, 4)}, kl = {num(kl, 6)}
              {ref === undefined &&
                ' (β = 0: no reference policy; kl is measured against the sampling policy and weighs nothing)'}
            </td>
          </tr>
          <tr>
            <th scope="row">entropy term</th>
            <td>
              entropy_coef = {num(s.entropy_coef, 4)}, entropy = {num(H, 5)}
            </td>
          </tr>
          <tr>
            <th scope="row">token loss</th>
            <td data-testid="obj-token">{num(token, 6)}</td>
          </tr>
          <tr>
            <th scope="row">aggregation weight</th>
            <td data-testid="obj-weight">
              {num(w, 6)} — {s.loss_type}: {aggregationText[lossTypes[s.loss_type].aggregation]}
              {!r.trained[i] && ' (this token is masked out of the loss)'}
            </td>
          </tr>
          <tr>
            <th scope="row">contribution</th>
            <td data-testid="obj-contribution" data-agree={agree}>
              {num(theirs, 7)} (the graph’s weight × token loss: {num(w, 6)} × {num(token, 6)}){' '}
              {agree ? '✓' : '≠ (see the note)'}
            </td>
          </tr>
        </tbody>
      </table>
      <p className="muted small">
        Numbers from the last optimisation pass of step {r.step} (μ = {s.num_iterations}, {s.minibatches} minibatch
        {s.minibatches === 1 ? '' : 'es'}); loss_type {s.loss_type}, scale_rewards {s.scale_rewards}, advantage
        estimator {s.advantage_estimator}.
      </p>
    </section>
  );
}
