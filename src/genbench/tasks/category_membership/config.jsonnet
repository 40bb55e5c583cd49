// Category membership with unseen categories: pick the one word (of four) that belongs to a named category.
{
  name: 'Category Membership (Unseen Categories)',
  description: 'Pick which of four words names a member of a category ("Which of these is a bird?"). The test '
               + 'set asks only about categories absent from the train and validation sets.',

  // GenBench taxonomy values (https://genbench.org/taxonomy/).
  keywords: [
    'sample_task',
    'compositional generalisation',
    'lexical semantics',
    'label shift',
    'fully generated data',
    'train-test locus',
    'multiple choice',
  ],
  authors: ['genbench developers'],

  // The task on the GenBench taxonomy (docs/taxonomy.md). The questions come from make_data.py's word lists and
  // templates; split.jsonnet partitions them by category.
  taxonomy: {
    motivation: 'intrinsic',
    generalisation_type: 'compositional',
    shift_type: 'label',
    shift_source: 'fully_generated_data',
    shift_locus: 'train-test',
  },
  primary_metric: 'hf_accuracy__accuracy',

  // The source files are an i.i.d. shuffle (as a dataset would usually be distributed); split.jsonnet
  // re-splits them by category and creates the `validation` split, which the source files lack.
  data_source: {
    type: 'manual',
    train: 'data/train.jsonl',
    test: 'data/test.jsonl',
  },
  split_file: 'split.jsonnet',
  // These describe the splits after re-splitting.
  has_train_set: true,
  has_validation_set: true,

  task_type: 'multiple_choice',
  // Every example carries its own four options; `answer` is the index of the correct one. `category` and
  // `seen_category` stay in the data as metadata.
  field_mapping: {
    input: 'question',
    target: 'answer',
    target_options: 'options',
  },

  // Accuracy only: a target is a position among per-example options, not a class shared across examples, so
  // F1 over positions would not measure anything about categories.
  evaluation_metrics: [
    { hf_id: 'accuracy', best_score: 1.0 },
  ],

  preparation_strategies: {
    finetuning: { objective: 'maximum_likelihood' },
    prompt_based_testing: {
      prompt_builder: {
        instruction_zero_shot: 'Answer each question with the one listed word that fits.\n\n',
        instruction_few_shot: 'Answer each question with the one listed word that fits.\n\n',
        input_prefix: 'Q: ',
        choices_prefix: '\nchoices:\n',
        choice_item_prefix: '- ',
        choice_item_postfix: '\n',
        output_prefix: 'A: ',
        // The data already places the correct option uniformly at random.
        permute_choices: false,
        few_shot_example_separator: '\n\n',
        stop_string: '\n',
      },
    },
  },
}
