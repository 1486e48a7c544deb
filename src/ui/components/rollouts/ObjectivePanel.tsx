import type { InspectRollout, ObjectiveSettings } from '../../../../workers/protocol.ts';
import { objectiveForm } from '../../../rl/objective-form.ts';
import { deriveAdvantage } from '../../advantage-derivation.ts';
import { num } from '../../channels.ts';

const aggregation: Record<ObjectiveSettings['loss_type'], string> = {
  grpo: 'grpo: 1 / (|oᵢ| · N) — mean over the sequence’s tokens, then over the N sequences of the minibatch',
  bnpo: 'bnpo: 1 / (tokens in the minibatch) — every token of the minibatch weighs the same',
  dapo: 'dapo: 1 / (tokens in the whole batch) — token-level loss over the generation batch',
  dr_grpo: 'dr_grpo: 1 / (N · max_completion_length) — a constant, no length normalisation',
  cispo: 'cispo: 1 / (tokens in the whole batch) — token-level, as dapo',
  sapo: 'sapo: 1 / (|oᵢ| · N) — mean over the sequence’s tokens, then over sequences, as grpo',
  luspo: 'luspo: 1 / N — summed over the sequence’s tokens (a sequence weighs by its length), mean over sequences',
  vespo: 'vespo: 1 / (tokens in the whole batch) — token-level, as dapo',
  gmpo: 'gmpo: 1 / (|oᵢ| · N) — one term per sequence, mean over sequences',
  clip_cov: 'clip_cov: 1 / (tokens in the whole batch) — token-level, as dapo',
  kl_cov: 'kl_cov: 1 / (tokens in the whole batch) — token-level, as dapo',
};

/** The ratio and obj lines of the formula, per objective form (src/rl/objective.ts policyObjective). */
function formulaLines(s: ObjectiveSettings): string {
  const seq = s.importance_sampling_level === 'sequence';
  const ratio = `ratio  = ${seq ? 'exp(mean over the sequence of (logp − old))   (sequence level, GSPO)' : 'exp(logp − old)   (token level)'}`;
  switch (objectiveForm(s.loss_type)) {
    case 'clip':
      return `${ratio}\nobj    = min(min(ratio, δ) · A, clip(ratio, 1 − ε, 1 + ε_high) · A)`;
    case 'cispo':
      return `${ratio}\nobj    = sg(min(ratio, ε_max)) · A · logp   (CISPO: ε_max = epsilon_high; sg = no gradient through the weight)`;
    case 'sapo':
      return `${ratio}\nobj    = sigmoid(τ · (ratio − 1)) · 4 / τ · A   (SAPO: τ = τ_pos if A > 0 else τ_neg)`;
    case 'vespo':
      return `${ratio}\nobj    = sg(φ) · A · logp,  φ = exp(λ + k · log w − λ · w),  log w = Σ over the sequence of (logp − old)\n         (VESPO: k, λ = the _pos knobs if A ≥ 0 else the _neg ones; sg = no gradient through φ)`;
    case 'gmpo':
      return `ratio  = exp(mean over the sequence of l′),  l′ = logp − old clipped to [−ε, ε_high] on the side A pushes\nobj    = ratio · A   (GMPO: the geometric mean of the clipped token ratios)`;
    case 'clip_cov':
      return `${ratio}\nobj    = min(ratio · A, clip(ratio, 1 − ε, 1 + ε_high) · A) · (1 − picked)\n         (Clip-Cov: a few tokens with (A − mean A)·(logp − mean logp) in (lb, ub) are picked at random and dropped)`;
    case 'kl_cov':
      return `${ratio}\nobj    = ratio · A − picked · ppo_kl_coef · |logp − old|\n         (KL-Cov: the tokens of largest (A − mean A)·(logp − mean logp) are picked; no clip)`;
  }
}

/** The knobs of the form, with their values. */
function knobLine(s: ObjectiveSettings): string {
  switch (objectiveForm(s.loss_type)) {
    case 'clip':
      return `[${num(1 - s.epsilon, 4)}, ${num(1 + s.epsilon_high, 4)}]${s.delta !== null ? ` · unclipped ratio capped at δ = ${s.delta}` : ''}`;
    case 'cispo':
      return `ratio capped at ε_max = epsilon_high = ${num(s.epsilon_high, 4)} (no lower bound)`;
    case 'sapo':
      return `no hard clip; τ_pos = ${num(s.sapo_temperature_pos, 4)}, τ_neg = ${num(s.sapo_temperature_neg, 4)}`;
    case 'vespo':
      return `no hard clip; A ≥ 0: k = ${num(s.vespo_k_pos, 4)}, λ = ${num(s.vespo_lambda_pos, 4)}; A < 0: k = ${num(s.vespo_k_neg, 4)}, λ = ${num(s.vespo_lambda_neg, 4)}`;
    case 'gmpo':
      return `token log-ratio clipped to [${num(-s.epsilon, 4)}, ${num(s.epsilon_high, 4)}]`;
    case 'clip_cov':
      return `[${num(1 - s.epsilon, 4)}, ${num(1 + s.epsilon_high, 4)}]; picked: ${num(s.clip_cov_ratio, 4)} of the tokens (at least 1) with covariance in (${s.clip_cov_lb}, ${s.clip_cov_ub})`;
    case 'kl_cov':
      return `no clip; picked: ${num(s.kl_cov_ratio, 4)} of the tokens (at least 1), penalty ppo_kl_coef = ${num(s.ppo_kl_coef, 4)}`;
  }
}

/** Where A comes from: the group's rewards, their mean and std, and the estimator's formula with the numbers (advantage-derivation.ts). */
function AdvantageFromRewards({ r, s, all }: { r: InspectRollout; s: ObjectiveSettings; all: InspectRollout[] }) {
  const d = deriveAdvantage(all, r, s);
  return (
    <div className="advantage-derivation" data-testid="obj-advantage-derivation" data-value={d.value} data-matches={d.matches}>
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
        (this completion in bold); mean <span data-testid="obj-group-mean">{num(d.mean, 4)}</span>, std <span data-testid="obj-group-std">{num(d.std, 4)}</span>
        {d.divisor?.kind === 'batch' && `, std of the step's batch ${num(d.divisor.std, 4)}`}
        <span className="small" data-testid="obj-std-convention">
          {' '}
          (every std here is the sample standard deviation: the squared deviations are summed and divided by n − 1{d.rewards.length > 1 ? ` = ${d.rewards.length - 1} for this group` : ''}, not by n, as torch.std and TRL
          compute it)
        </span>
      </p>
      <pre className="formula" data-testid="obj-advantage-formula">
        {d.formula}
        {'\n'}
        {d.substituted}
      </pre>
      <p className="small">{d.matches ? '✓ the advantage the update used' : `≠ the recorded ${num(r.advantage, 6)} (this step's groups may have been refilled or hinted)`}</p>
    </div>
  );
}

/**
 * The objective of src/rl/objective.ts for the selected token, filled with the numbers the update
 * graph itself output for it (ratio, obj, kl, token loss, contribution): nothing is recomputed here.
 * The last line checks weight × token loss against the contribution the graph summed into the loss.
 */
export function ObjectivePanel({ r, i, s, all }: { r: InspectRollout; i: number; s: ObjectiveSettings; all: InspectRollout[] }) {
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
  const form = objectiveForm(s.loss_type);
  const clippedNote =
    form === 'cispo' ? ` — the ratio is above ε_max: its weight is ε_max (the token still gets a gradient)` : ` — the clipped branch (${r.clipped[i]}): this token gives no gradient`;
  return (
    <section className="objective" aria-label="Objective for the selected token" data-testid="objective-panel">
      <h3>
        Objective at token {i} <code>{JSON.stringify(r.tokenText[i])}</code>
      </h3>
      <pre className="formula" data-testid="objective-formula">
        {`${formulaLines(s)}
kl     = ${s.kl_estimator === 'k3' ? 'exp(ref − logp) − (ref − logp) − 1   (k3)' : 'logp − ref   (k1)'}
token  = −obj + β · kl${s.use_bias_correction_kl ? ' · ratio   (use_bias_correction_kl)' : ''} − entropy_coef · entropy
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
              {!seq && form !== 'gmpo' && ` = exp(${num(r.newLogp[i], 4)} − ${num(r.oldLogp[i], 4)})`}
            </td>
          </tr>
          <tr>
            <th scope="row">{form === 'clip' || form === 'gmpo' || form === 'clip_cov' ? 'clip range' : 'knobs'}</th>
            <td data-testid="obj-clipped">{knobLine(s)}</td>
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
              {r.clipped[i] ? clippedNote : form === 'clip' || form === 'gmpo' || form === 'clip_cov' ? ' — the unclipped branch' : ''}
            </td>
          </tr>
          <tr>
            <th scope="row">KL term</th>
            <td data-testid="obj-kl">
              β = {num(s.beta, 4)}, kl = {num(kl, 6)}
              {ref === undefined && ' (β = 0: no reference policy; kl is measured against the sampling policy and weighs nothing)'}
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
              {num(w, 6)} — {aggregation[s.loss_type]}
              {!r.trained[i] && ' (this token is masked out of the loss)'}
            </td>
          </tr>
          <tr>
            <th scope="row">contribution</th>
            <td data-testid="obj-contribution" data-agree={agree}>
              {num(theirs, 7)} (the graph’s weight × token loss: {num(w, 6)} × {num(token, 6)}) {agree ? '✓' : '≠ (see the note)'}
            </td>
          </tr>
        </tbody>
      </table>
      <p className="muted small">
        Numbers from the last optimisation pass of step {r.step} (μ = {s.num_iterations}, {s.minibatches} minibatch{s.minibatches === 1 ? '' : 'es'}); loss_type {s.loss_type}, scale_rewards {s.scale_rewards}, advantage estimator{' '}
        {s.advantage_estimator}.
      </p>
    </section>
  );
}
