import type { Command } from './command.ts';
import { sampleCommand } from './sample.ts';
import { tasksCommand } from './tasks.ts';
import { verifyCommand } from './verify.ts';
import { pretrainCommand } from './pretrain.ts';
import { modelsCommand } from './models.ts';
import { evalCommand } from './eval.ts';
import { trainCommand } from './train.ts';
import { sweepCommand } from './sweep.ts';
import { benchCommand } from './bench.ts';
import { exportCommand } from './export.ts';
import { importCommand } from './import.ts';
import { scoreCommand } from './score.ts';
import { lessonCommand, lessonsCommand } from './lessons.ts';
import { recordCommand } from './record.ts';
import { viewCommand } from './view.ts';
import { findingsCommand } from './findings.ts';

/** Every rlvr subcommand, in the order `rlvr --help` lists them. */
export const commands: Command[] = [
  tasksCommand,
  sampleCommand,
  verifyCommand,
  pretrainCommand,
  modelsCommand,
  evalCommand,
  trainCommand,
  sweepCommand,
  exportCommand,
  importCommand,
  scoreCommand,
  lessonsCommand,
  lessonCommand,
  recordCommand,
  viewCommand,
  findingsCommand,
  benchCommand,
];
