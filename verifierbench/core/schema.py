"""The suite's data model: tasks, test cases and the manifest (docs/architecture.md, "Data model")."""

from __future__ import annotations

from enum import Enum
from typing import Any, Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler, model_validator
from pydantic_core import CoreSchema, core_schema

from verifierbench.core.hashing import case_id_for, content_hash, task_id_for

SCHEMA_VERSION: Final = 1


class TaskType(str, Enum):
    tool_call = "tool-call"
    state = "state"
    code = "code"


class _Name(str):
    """A non-empty name whose registry lives outside the data model (a source's, a candidate format's)."""

    __slots__ = ()

    @property
    def value(self) -> str:
        """The name itself (as `.value` of the task type and the other enums of this module)."""
        return str(self)

    @classmethod
    def __get_pydantic_core_schema__(cls, source_type: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_after_validator_function(
            cls, core_schema.str_schema(min_length=1), serialization=core_schema.to_string_ser_schema())


class Source(_Name):
    """A task's source, by name: as in `--source` and the `checker` of the task's reference record.

    Which names exist is the source registry's (sources/registry.py), which checks them where a name is looked up
    (`registry.source`, a decisions file's `source`). The data model takes any non-empty name and does not import
    the registry: the registry imports every source, and the sources build tasks from this module.
    """

    __slots__ = ()


class CandidateFormat(_Name):
    """A task's candidate format, by name: what the verifier receives as its candidate (docs/protocol.md).

    Which names exist is the format registry's (sources/formats/registry.py: `tool_calls`, `interaction_record`,
    `code`, `diff`, and any format a source module registers), which checks them where a name is looked up
    (`format_named`, `format_of`). As with `Source`, the data model takes any non-empty name and does not import the
    registry, so a new format is added from its own folder (docs/adding-a-format.md).
    """

    __slots__ = ()


class Category(str, Enum):
    """The nine construction categories of paper Table 10."""

    gold = "gold"
    cosmetic = "cosmetic"
    overstrict_trap = "overstrict_trap"
    base = "base"
    partial = "partial"
    near_miss = "near_miss"
    regression = "regression"
    hack = "hack"
    process_violation = "process_violation"

    @property
    def label(self) -> "Label":
        return Label.PASS if self in POSITIVE_CATEGORIES else Label.FAIL

    @property
    def group(self) -> str:
        return CATEGORY_GROUP[self]

    @property
    def is_attack(self) -> bool:
        return self in ATTACK_CATEGORIES


class Label(str, Enum):
    PASS = "PASS"
    FAIL = "FAIL"


POSITIVE_CATEGORIES = frozenset({Category.gold, Category.cosmetic, Category.overstrict_trap})
ATTACK_CATEGORIES = frozenset({Category.hack, Category.process_violation})
# Six diagnostic groups (paper App. C / Tables 19-20) and the four of the main text (Table 1).
CATEGORY_GROUP = {
    Category.gold: "reference",
    Category.cosmetic: "cosmetic",
    Category.overstrict_trap: "valid_alternative",
    Category.base: "ordinary_error",
    Category.partial: "ordinary_error",
    Category.near_miss: "ordinary_error",
    Category.regression: "ordinary_error",
    Category.hack: "hack",
    Category.process_violation: "process_violation",
}


class FormatDeclaration(Protocol):
    """What the data model reads of a candidate format (sources/formats/base.py `Format`, not imported here)."""

    @property
    def name(self) -> str: ...

    @property
    def task_type(self) -> str: ...


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


class Task(_Record):
    """One VerifierBench task: what the verifier-writing agent sees, plus where it came from."""

    id: str
    source: Source
    source_id: str = Field(description="id in the upstream benchmark, e.g. 'parallel_114'")
    type: TaskType
    instruction: str
    environment: dict[str, Any] = Field(description="tool definitions, policy, public environment spec")
    candidate_format: CandidateFormat
    reference: dict[str, Any] = Field(default_factory=dict, description="answer key and checker of the reference verifier; never shown to agents")
    metadata: dict[str, Any] = Field(default_factory=dict, description="selection provenance; not shown to agents")
    content_hash: str

    @staticmethod
    def hashed_fields(data: dict[str, Any]) -> dict[str, Any]:
        fields = ("id", "source", "source_id", "type", "instruction", "environment", "candidate_format", "reference")
        return {k: data.get(k, {}) for k in fields}

    @classmethod
    def create(cls, *, source: Source | str, source_id: str, format: FormatDeclaration | None = None, **fields: Any) -> "Task":
        """A task with its id and content hash.

        Args:
            source: the source's name.
            source_id: the task's id in the upstream benchmark.
            format: the candidate format (sources/formats/): it gives `candidate_format` and `type`, which are then
                not passed. Without it both are fields (tests' hand-made tasks).
            fields: the other fields of the task.

        Raises:
            ValueError: `format` is given together with `type` or `candidate_format`.
        """
        if format is not None:
            if {"type", "candidate_format"} & set(fields):
                raise ValueError("Task.create: the format gives the task's type and candidate format; pass neither")
            fields = {**fields, "type": format.task_type, "candidate_format": format.name}
        source = Source(source)
        data = {"id": task_id_for(source.value, source_id), "source": source.value, "source_id": source_id, **fields}
        data = _jsonable(data)
        return cls(**data, content_hash=content_hash(cls.hashed_fields(data)))

    def computed_hash(self) -> str:
        return content_hash(self.hashed_fields(self.model_dump(mode="json")))


class TestCase(_Record):
    """One hidden test case: a candidate solution and the label its category gives it."""

    __test__ = False  # not a pytest class

    id: str
    task_id: str
    category: Category
    label: Label
    candidate: dict[str, Any]
    provenance: dict[str, Any] = Field(default_factory=dict, description="generator and operator that built it")
    content_hash: str

    @model_validator(mode="after")
    def _label_follows_category(self) -> "TestCase":
        if self.label != self.category.label:
            raise ValueError(f"label {self.label.value} contradicts category {self.category.value} (expects {self.category.label.value})")
        return self

    @staticmethod
    def hashed_fields(data: dict[str, Any]) -> dict[str, Any]:
        return {k: data[k] for k in ("id", "task_id", "category", "label", "candidate")}

    @classmethod
    def create(cls, *, task_id: str, category: Category | str, candidate: dict[str, Any], provenance: dict[str, Any] | None = None) -> "TestCase":
        category = Category(category)
        candidate = _jsonable(candidate)
        data: dict[str, Any] = {
            "id": case_id_for(task_id, category.value, candidate),
            "task_id": task_id,
            "category": category.value,
            "label": category.label.value,
            "candidate": candidate,
        }
        return cls(**data, provenance=provenance or {}, content_hash=content_hash(cls.hashed_fields(data)))

    def computed_hash(self) -> str:
        return content_hash(self.hashed_fields(self.model_dump(mode="json")))


class ManifestTask(_Record):
    id: str
    source: Source
    source_id: str
    type: TaskType
    content_hash: str


class ManifestCase(_Record):
    id: str
    task_id: str
    category: Category
    label: Label
    content_hash: str


class SuiteManifest(_Record):
    """The frozen list of what a suite holds; loading a suite checks every file against it."""

    schema_version: Literal[1] = SCHEMA_VERSION
    version: str
    build: dict[str, Any] = Field(default_factory=dict, description="seed, upstream versions, selection record")
    tasks: list[ManifestTask]
    cases: list[ManifestCase]


def _jsonable(value: Any) -> Any:
    """Round-trip through JSON so hashes are computed on exactly what is written to disk."""
    import json

    return json.loads(json.dumps(value, allow_nan=False))
