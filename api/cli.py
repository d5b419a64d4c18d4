"""Operator commands: `flask --app api db upgrade`, `flask --app api catalog load PATH`,
`flask --app api catalog seed` (loads CATALOG_PATH when the catalog is empty),
`flask --app api brief run [--force]` (makes today's research brief, for cron)."""
import functools
import sys

import click
from flask.cli import AppGroup

from config import get_settings
from services import brief
from services.catalog import CatalogError, catalog_is_empty, load_catalog_file
from services.database import pending_migrations, upgrade_schema, without_statement_timeout

db_cli = AppGroup("db", help="Database schema.")
catalog_cli = AppGroup("catalog", help="The product catalog.")
brief_cli = AppGroup("brief", help="The nightly research brief.")


def unbounded(command):
    """An operator's command may run long (an index built on a large table, a catalog of
    100,000 products): it works without the web's statement timeout and waits."""

    @functools.wraps(command)
    def run(*args, **kwargs):
        without_statement_timeout()
        return command(*args, **kwargs)

    return run


@db_cli.command("upgrade")
@unbounded
def db_upgrade():
    """Applies every pending migration."""
    applied = upgrade_schema()
    click.echo(f"database up to date ({len(applied)} migration(s) applied{': ' + ', '.join(applied) if applied else ''})")


@db_cli.command("pending")
@unbounded
def db_pending():
    """Lists migrations not yet applied."""
    names = pending_migrations()
    click.echo("\n".join(names) if names else "none")


def _load(path: str) -> None:
    try:
        report = load_catalog_file(path)
    except CatalogError as exc:
        click.echo(f"catalog {path}: {exc}", err=True)
        sys.exit(1)
    except OSError as exc:
        click.echo(f"catalog {path}: cannot read the file ({exc.strerror})", err=True)
        sys.exit(1)
    click.echo(f"catalog {path}: {report.products} products ({report.created} new, {report.updated} updated), "
               f"{report.evidence} evidence rows")


@catalog_cli.command("load")
@click.argument("path", type=click.Path(dir_okay=False))
@unbounded
def catalog_load(path):
    """Loads a JSON Lines catalog file; all of it or, if any line is bad, nothing."""
    _load(path)


@catalog_cli.command("seed")
@unbounded
def catalog_seed():
    """Loads CATALOG_PATH if the catalog is empty (what `make run` does on start)."""
    if not catalog_is_empty():
        click.echo("catalog already has products; nothing loaded")
        return
    _load(get_settings().catalog_path)


@brief_cli.command("run")
@click.option("--force", is_flag=True, help="Make today's brief again even if it was already made.")
@unbounded
def brief_run(force):
    """Makes today's research brief now (what the clock does nightly) and prints a summary."""
    result = brief.run(force=force)
    click.echo(result["summary"] + ("" if result["made"] else " (--force makes it again)"))
