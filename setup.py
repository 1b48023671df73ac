"""Packaging hook (the project is configured in pyproject.toml): a built wheel carries the docs, so that
the links in diagnostics and messages open the docs of the version installed, wherever it is installed."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithDocs(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads docs/ from the source tree
        source = Path(__file__).parent / "docs"
        target = Path(self.build_lib) / "lorekeeper" / "docs"
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            for page in source.glob("*.md"):
                shutil.copyfile(page, target / page.name)


setup(cmdclass={"build_py": BuildWithDocs})
