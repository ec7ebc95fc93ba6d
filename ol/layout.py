"""Where the `tinyllm-ol` wheel puts the course's data inside the `ol` package, written once: tools/ol_wheel.py
writes the wheel by these names and ol/workspace.py reads it by them.

    ol/course/build.json                  the build: {"course", "version", "site"}
    ol/course/exercises/course.toml       the course's defaults
    ol/course/exercises/<slug>/...        each exercise's folder, and its known mistakes (course/known.py)
"""
from __future__ import annotations

import json
from pathlib import Path

PACKAGE = "ol"
COURSE_DIR = "course"       # in the wheel only: absent from a checkout
EXERCISES_DIR = "exercises"
BUILD_INFO = "build.json"
PACKAGED = Path(__file__).resolve().parent / COURSE_DIR


def archive_name(*parts: str) -> str:
    """The name in the wheel of a file of the course's data: archive_name("exercises", "e7-3", "starter.py")."""
    return "/".join((PACKAGE, COURSE_DIR, *parts))


def build_info_bytes(course: str, version: str, site: str) -> bytes:
    """The wheel's build.json."""
    return json.dumps({"course": course, "version": version, "site": site}, indent=1).encode() + b"\n"
