{%- macro q(text) %}'{{ text|replace('\\', '\\\\')|replace("'", "\\'") }}'{% endmacro -%}
// The configuration of `{{ cookiecutter.task_id }}`, a task made of subtasks. Each subtask is a directory here with
// its own config.jsonnet, task.py and data, and is loaded as `load_task('{{ cookiecutter.task_id }}:<subtask id>')`;
// `load_task('{{ cookiecutter.task_id }}')` returns a TaskDict of them all. `description`, `keywords` and `authors`
// are optional here: left out, they default to the subtasks' own.
{
  name: {{ q(cookiecutter.task_name) }},

  description: 'TODO: describe what the task tests, and what each subtask contributes.',

  // We recommend you use the GenBench taxonomy values that describe your task as keywords.
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

  // The subtasks, in the order their results are reported and merged. Every subtask directory must be listed.
  subtasks_order: [
{%- for subtask_id in cookiecutter.subtask_ids.split(',') %}{% if subtask_id.strip() %}
    {{ q(subtask_id.strip()) }},
{%- endif %}{% endfor %}
  ],
}
