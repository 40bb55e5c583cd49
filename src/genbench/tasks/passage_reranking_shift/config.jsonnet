// Passage reranking under a domain shift: rerank a first-stage ranking of passages per query.
{
  name: 'Passage Reranking Shift',
  description: 'Rerank the passages a first-stage retriever returned for a query, so that the relevant ones come '
               + 'first. Train queries are about gardening and cooking, test queries about astronomy and '
               + 'programming: a reranker must carry relevance judgements across domains.',
  keywords: [
    'sample_task',
    'cross-domain generalisation',
    'covariate shift',
    'naturally occurring shift',
    'train-test locus',
    'reranking',
  ],
  authors: ['genbench developers'],

  // The task on the GenBench taxonomy (docs/taxonomy.md).
  taxonomy: {
    motivation: 'practical',
    generalisation_type: 'across_domain',
    shift_type: 'covariate',
    shift_source: 'naturally_occurring',
    shift_locus: 'train-test',
  },
  primary_metric: 'cross_encoder_reranking__ndcg@10',

  // Hand-written rows (make_data.py): query, positive (relevant passages), documents (first-stage ranking).
  data_source: {
    type: 'manual',
    train: 'data/train.jsonl',
    test: 'data/test.jsonl',
  },
  has_train_set: true,

  // task.py maps query -> input, positive -> target, documents -> target_options. Predictions are one score per
  // target_options entry.
  task_type: 'reranking',

  evaluation_metrics: [
    {
      type: 'cross_encoder_reranking',
      at_k: 10,
      // target_options is a first-stage ranking: its base_* metrics are reported too.
      first_stage_ranking: true,
      always_rerank_positives: true,
      penalize_missing_positives: false,
      best_score: 1.0,
    },
  ],

  // Reranking tasks are evaluated from scores: no prompt-based testing.
  preparation_strategies: {
    finetuning: { objective: 'maximum_likelihood' },
  },
}
