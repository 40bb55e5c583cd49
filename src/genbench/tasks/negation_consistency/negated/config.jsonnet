// Subtask `negated`: judge negated category statements ("A robin is not a bird."), trained on affirmative ones.
{
  name: 'Negation Consistency: Negated',
  description: 'Judge whether a negated category statement ("A robin is not a bird.") is true or false, after '
               + 'training (or few-shot prompting) on affirmative statements only.',
  keywords: [
    'sample_task',
    'compositional generalisation',
    'consistency',
    'covariate shift',
    'fully generated data',
    'train-test locus',
    'negation',
  ],
  authors: ['genbench developers'],

  // Written by ../make_data.py. The train set holds affirmative statements only (the same file as in the
  // affirmative subtask): negation first appears at test time.
  data_source: {
    type: 'manual',
    train: 'data/train.jsonl',
    test: 'data/test.jsonl',
  },
  has_train_set: true,
  has_validation_set: false,

  task_type: 'multiple_choice',
  // `label` indexes `options`, which is ['true', 'false'] in every row (0 = true, 1 = false). `pair_id` (test
  // only) links a statement to its negation in the other subtask.
  field_mapping: {
    input: 'statement',
    target: 'label',
    target_options: 'options',
  },

  // The options are the same two labels in every example, so class-based F1 is meaningful: macro F1 exposes a
  // model that answers one label regardless of the statement.
  evaluation_metrics: [
    { hf_id: 'accuracy', best_score: 1.0 },
    { hf_id: 'f1', best_score: 1.0, compute_extra_kwargs: { average: 'macro' } },
  ],

  preparation_strategies: {
    finetuning: { objective: 'maximum_likelihood' },
    prompt_based_testing: {
      prompt_builder: {
        instruction_zero_shot: 'Is the statement true or false?\n\n',
        instruction_few_shot: 'Is each statement true or false?\n\n',
        input_prefix: 'Statement: ',
        choices_prefix: '\nchoices:\n',
        output_prefix: 'Answer: ',
        few_shot_example_separator: '\n\n',
        stop_string: '\n',
      },
    },
  },
}
