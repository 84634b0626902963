"""The bottom layer: helpers with no knowledge of eval sets, agents or criteria.

Atomic file writing (`files`), "did you mean" hints (`suggestions`), reading JSON and
YAML documents (`documents`), percentiles (`stats`), `Retry-After` headers and overload
signals (`retry_after`, `overloads`), the adaptive limit on work in flight
(`concurrency`) and the one sync edge of the async code (`aio`). Every other package may
import from here; nothing here imports another evalkit package except `errors` and
`defaults` (docs/architecture.md, "Layers").
"""
