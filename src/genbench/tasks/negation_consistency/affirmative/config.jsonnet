// Subtask `affirmative`: judge affirmative category statements ("A robin is a bird.").
{
  name: 'Negation Consistency: Affirmative',
  description: 'Judge whether an affirmative category statement ("A robin is a bird.") is true or false. The '
               + 'in-distribution reference for the negated subtask.',
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

  // Written by ../make_data.py; the train set is the same file in both subtasks.
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
