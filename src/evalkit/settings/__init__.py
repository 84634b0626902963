"""What a run runs and how, and what it writes when it ends: each setting declared once.

- `RunSettings` (run.py): the run's own knobs, read by the engine, the runner and the adapters.
- `FinishSettings` (finish.py): its outputs, baseline and gates, read by the finish step.
- `Setting` (declaration.py): a field's flag, help, API keyword and pytest option, from
  which the CLI, `evalkit.run_evals` and the pytest plugin derive theirs.
- `Environment` (environment.py): the `EVALKIT_*` variables, read there and nowhere else.
"""

from evalkit.settings.declaration import Declared, Needs, Setting, declared
from evalkit.settings.fronts import every_setting, flags, keywords, pytest_option, pytest_options
from evalkit.settings.environment import Environment
from evalkit.settings.finish import GATE_BOTH, GATE_REGRESSIONS, GATE_THRESHOLDS, FinishSettings
from evalkit.settings.partners import check_partners
from evalkit.settings.run import RunSettings
from evalkit.settings.values import AUTO_PROCESSES, Concurrency, ProcessesSetting, parse_headers, parse_processes
