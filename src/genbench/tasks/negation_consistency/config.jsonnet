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
    'robustness',
    'covariate shift',
    'generated shift',
    'train-test locus',
    'negation',
  ],
  authors: ['genbench developers'],
  // Report and merge results in this order.
  subtasks_order: ['affirmative', 'negated'],
}
