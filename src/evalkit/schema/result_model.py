"""The bases of the result file's models, and the rule for keys written only when set.

Every model of the result file keeps keys it does not know (a newer evalkit's), so a
file read and written again loses nothing. Most keys are written as `null` when unset;
a few are left out instead, as the plain objects the models replaced left them out: a
`SparseModel` names those in `omitted_when_none` (a base of its own, so the many cases
and criteria of a run are serialized without a Python step per object).
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer


class ResultModel(BaseModel):
    model_config = ConfigDict(extra="allow", use_enum_values=False)


class SparseModel(ResultModel):
    omitted_when_none: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _leave_out_unset(self, handler: SerializerFunctionWrapHandler) -> Any:
        data = handler(self)
        if isinstance(data, dict):
            for name in self.omitted_when_none:
                if name in data and data[name] is None:
                    del data[name]
        return data
