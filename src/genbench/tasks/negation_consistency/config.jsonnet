// A task with two subtasks: the same category statements, affirmative and negated. Both subtasks train on
// affirmative statements only, so the `negated` subtask tests whether what was learnt carries over to negation.
{
  name: 'Negation Consistency',
  description: 'Judge category statements as true or false. The affirmative subtask tests statements like '
               + '"A robin is a bird."; the negated subtask tests the same statements negated ("A robin is not a '
               + 'bird."), while both train sets hold affirmative statements only.',
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

  // The task on the GenBench taxonomy (docs/taxonomy.md), for both subtasks: `affirmative` is the reference,
  // `negated` the shifted test. Statements come from make_data.py's word lists and one template.
  taxonomy: {
    motivation: 'intrinsic',
    generalisation_type: 'compositional',
    shift_type: 'covariate',
    shift_source: 'fully_generated_data',
    shift_locus: 'train-test',
  },
  // The mean accuracy over the subtasks (merge_evaluation_results also reports negation_gap__*, declared
  // closer-to-zero-is-better below).
  primary_metric: 'hf_accuracy__accuracy',
  // negation_gap__<metric> is the affirmative score minus the negated one. A model that handles negation scores
  // the same on both (gap 0); a negative gap (better on the negated statements) is as inconsistent as a positive
  // one of the same size, so 'zero', not 'lower' (which would rank -0.3 above 0). Declared here so that no tool
  // has to guess it from the name (the name rule would say lower is better).
  metric_directions: { 'negation_gap__*': 'zero' },
  // Report and merge results in this order.
  subtasks_order: ['affirmative', 'negated'],
}
