// Named-entity tagging (BIO) where the test sentences are longer and name entities never seen in training.
{
  name: 'NER with Unseen Entities',
  description: 'Tag each token of a sentence with a BIO named-entity label (PER, ORG, LOC). Test sentences join '
               + 'two clauses (longer than any training sentence) and mention persons and organisations that never '
               + 'occur in the train set; about half of their locations are new too.',

  // GenBench taxonomy values (https://genbench.org/taxonomy/).
  keywords: [
    'sample_task',
    'compositional generalisation',
    'lexical generalisation',
    'covariate shift',
    'fully generated data',
    'train-test locus',
    'named entity recognition',
  ],
  authors: ['genbench developers'],

  // The task on the GenBench taxonomy (docs/taxonomy.md): sentences from clause templates and name lists.
  taxonomy: {
    motivation: 'practical',
    generalisation_type: 'compositional',
    shift_type: 'covariate',
    shift_source: 'fully_generated_data',
    shift_locus: 'train-test',
  },
  // seqeval's entity-level F1 over all entity types.
  primary_metric: 'hf_seqeval__overall_f1',

  data_source: {
    type: 'manual',
    train: 'data/train.jsonl',
    test: 'data/test.jsonl',
  },
  has_train_set: true,
  has_validation_set: false,

  task_type: 'sequence_labeling',
  // Each row holds the sentence's `tokens` and one BIO label per token in `tags`.
  field_mapping: {
    input: 'tokens',
    target: 'tags',
  },

  // seqeval scores whole entity spans: a half-tagged name counts as a miss. Its overall F1 is 1.0 for a perfect
  // tagging.
  evaluation_metrics: [
    { hf_id: 'seqeval', best_score: 1.0 },
  ],

  preparation_strategies: {
    finetuning: { objective: 'maximum_likelihood' },
    prompt_based_testing: {
      prompt_builder: {
        instruction_zero_shot: 'Label every token of the sentence with its named-entity tag (B-PER, I-PER, B-ORG, '
                               + 'I-ORG, B-LOC, I-LOC or O). Write one tag per token, separated by commas.\n\n',
        instruction_few_shot: 'Label every token of the sentence with its named-entity tag (B-PER, I-PER, B-ORG, '
                              + 'I-ORG, B-LOC, I-LOC or O). Write one tag per token, separated by commas.\n\n',
        input_prefix: 'Sentence: ',
        output_prefix: '\nTags: ',
        sequence_labeling_separator: ',',
        few_shot_example_separator: '\n\n',
        stop_string: '\n',
      },
    },
  },
}
