// Arithmetic length generalisation: add two integers, trained on short operands, tested on longer ones.
{
  name: 'Arithmetic Length Generalisation',
  description: 'Add two non-negative integers. Train and validation sums have operands of one or two digits; '
               + 'test sums have a longer operand of three to five digits, so a model must extend the carrying '
               + 'procedure to lengths it never saw.',

  // GenBench taxonomy values (https://genbench.org/taxonomy/).
  keywords: [
    'sample_task',
    'compositional generalisation',
    'length generalisation',
    'covariate shift',
    'fully generated data',
    'train-test locus',
    'arithmetic',
  ],
  authors: ['genbench developers'],

  // The task on the GenBench taxonomy (docs/taxonomy.md); `genbench-cli eval-card -t arithmetic_length` draws it.
  // Data written by make_data.py throughout (templates), so the shift source is fully generated data.
  taxonomy: {
    motivation: 'intrinsic',
    generalisation_type: 'compositional',
    shift_type: 'covariate',
    shift_source: 'fully_generated_data',
    shift_locus: 'train-test',
  },
  primary_metric: 'hf_exact_match__exact_match',

  // The data is written by make_data.py (seeded) and ships with the task; paths are relative to this directory.
  data_source: {
    type: 'manual',
    train: 'data/train.jsonl',
    validation: 'data/validation.jsonl',
    test: 'data/test.jsonl',
  },
  has_train_set: true,
  has_validation_set: true,

  // Rows already have `input` and `target` (no field_mapping needed); `max_digits` is kept as metadata for
  // per-length analysis.
  task_type: 'free_form',

  // A model may wrap the answer in words ("The sum is 1006."): score the first integer it writes.
  free_form_output_regex: '-?\\d+',

  evaluation_metrics: [
    { hf_id: 'exact_match', best_score: 1.0 },
  ],

  preparation_strategies: {
    // Finetune on the 1-2 digit sums, pick checkpoints on the validation set, test on the long sums.
    finetuning: { objective: 'maximum_likelihood' },
    prompt_based_testing: {
      prompt_builder: {
        instruction_zero_shot: 'Add the two numbers. Answer with the sum only.\n\n',
        instruction_few_shot: 'Add the two numbers. Answer with the sum only.\n\n',
        input_prefix: 'Q: ',
        output_prefix: '\nA: ',
        few_shot_example_separator: '\n\n',
        // The answer is one line: anything after the first newline is not part of it.
        stop_string: '\n',
      },
    },
  },
}
