{%- macro q(text) %}'{{ text|replace('\\', '\\\\')|replace("'", "\\'") }}'{% endmacro -%}
// The configuration of the task `{{ cookiecutter.task_full_id }}`. Jsonnet (https://jsonnet.org) is a superset of
// JSON: comments and trailing commas are allowed. `genbench-cli schema --output-file config.schema.json` writes the
// JSON Schema for editor autocompletion; docs/config.md lists every field.
//
// As created, the task works end to end on the small example data in `data/` (sums of two numbers), so that
// `genbench-cli test-task -t {{ cookiecutter.task_full_id }}` passes from the start: replace the data and the fields
// below with your own, and run it again after each change.
{
  name: {{ q(cookiecutter.task_name) }},

  // A short description of the task; doc.md holds the full documentation.
  description: 'Add two numbers. TODO: describe what the task tests and how its test set differs from its '
               + 'training data.',

  // We recommend you use the GenBench taxonomy values that describe your task as keywords.
  // You can copy them from your GenBench Evaluation Card (https://genbench.org/eval_cards/).
  keywords: [
    'Keyword1',
    'Keyword2',
  ],

  authors: [
{%- for author in cookiecutter.authors.split(',') %}{% if author.strip() %}
    {{ q(author.strip()) }},
{%- endif %}{% endfor %}
  ],

{{ cookiecutter.taxonomy_block }}

  // Where the examples come from: JSONL files (`manual`) or a Hugging Face dataset (`hf`); give only one.
  //
  // Option 1: JSONL files, one JSON object per line. Each split is an https://, http:// or file:// URI or a path
  // relative to this directory; downloads are cached, and an optional `sha256: {test: '...'}` pins their content.
  data_source: {
    type: 'manual',
    test: 'data/test.jsonl',
    train: 'data/train.jsonl',  // Optional (then set has_train_set: true)
    // validation: 'data/validation.jsonl',  // Optional (then set has_validation_set: true)
  },
  //
  // Option 2: a Hugging Face dataset, pinned to a commit so that it never changes under the task
  // (https://huggingface.co/datasets/<dataset-name>/commits/main).
  // data_source: {
  //   type: 'hf',
  //   hf_id: 'snli',  // or ['super_glue', 'MultiRC'] for a dataset with configurations
  //   git_commit_sha: '070042b...',
  // },

  // Providing a test set is mandatory. Depending on the generalisation protocol the task implements, you can also
  // provide a train and a validation set (e.g. finetune on train + validation, then evaluate on test). Few-shot
  // examples of prompts are drawn from the train set, else the validation set, else the test set (never the
  // query itself).
  has_train_set: true,
  has_validation_set: false,

  // 'free_form', 'multiple_choice' or 'sequence_labeling'; the data must have the matching shape:
  // - free_form:         input: string, target: string
  // - multiple_choice:   input: string, target: index of the right option, target_options: list of strings
  // - sequence_labeling: input: list of tokens, target: list of labels (as many as tokens)
  task_type: 'free_form',

  // Free form only: score the first match of this regex in a prediction (after `stop_string` below). This one keeps
  // the first sentence without its surrounding spaces (a model's ' Tokyo.' is scored as 'Tokyo'):
  // free_form_output_regex: '[^\\s.?!;](?:[^.?!;\\n]*[^\\s.?!;])?',

  // The examples of data/*.jsonl already have `input` and `target`. When the data source names them differently,
  // map the task's fields to the source's fields:
  // field_mapping: {
  //   input: 'question',
  //   target: 'answer',
  //   // target_options: 'choices',  // multiple_choice only
  // },

  // Re-split the data source: a jsonnet file in this directory listing 'split:index' entries per split.
  // split_file: 'split.jsonnet',

  // At least one metric. Built-in metrics (no download): accuracy, exact_match, f1, precision, recall,
  // matthews_correlation, pearsonr, spearmanr, ...; any other Hugging Face `evaluate` id also works.
  // `best_score` is the score of perfect predictions: `genbench-cli test-task` checks that the gold answers reach it.
  evaluation_metrics: [
    { hf_id: 'exact_match', best_score: 1.0 },
  ],

  // The result key of the task's headline score: what the leaderboard ranks by (`genbench-cli test-task` checks
  // that the task's evaluation gives it). A metric's keys are hf_<metric id>__<key of its output>.
  primary_metric: 'hf_exact_match__exact_match',
  // Optional: which way a metric is better, where its name does not say (keys or glob patterns of keys ->
  // 'higher', 'lower' or 'zero', closer to zero is better, for a signed gap), e.g.
  // metric_directions: { 'hf_wer__wer': 'lower' },

  // How to prepare a model for the task: at least one of `finetuning` and `prompt_based_testing`.
  preparation_strategies: {
    // Finetune on the train set, evaluate on the test set (e.g. for encoder models); needs has_train_set: true.
    // finetuning: { objective: 'maximum_likelihood' },

    // Prompt a generative model, zero- or few-shot.
    prompt_based_testing: {
      prompt_builder: {
        // Prompt construction follows BIG-bench; every option has a default (see docs/config.md).
        instruction_zero_shot: 'Add two numbers together.\n\n',
        instruction_few_shot: 'Add two numbers together.\n\n',
        input_prefix: 'Q: ',
        output_prefix: '\nA: ',
        few_shot_example_separator: '\n\n',
        // A prediction is cut at the first occurrence of this string before it is scored.
        stop_string: '\n\n',
      },
    },
  },
}
