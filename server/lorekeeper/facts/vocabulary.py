"""Names of developer tools and services, grouped by the role they play. Two memories that name two
tools of one role for the same purpose disagree ("Tests run with Jest" / "We use Vitest for tests");
tools of different roles coexist ("Unit tests run with Vitest" / "E2E tests run with Playwright").

A name may stand in several roles (Bun is a runtime and a package manager). Names are matched as
lower-case words or word sequences; multi-word names are written with spaces."""

from __future__ import annotations

import re
from functools import cache, lru_cache

from ..core.text import TEXT_CACHE

ROLES: dict[str, str] = {
    "js-package-manager": "npm pnpm yarn bun",
    "python-package-manager": "pip pipenv poetry uv pdm hatch conda rye pip-tools",
    "js-test-runner": "jest vitest mocha jasmine ava tape karma bun:test node:test",
    "python-test-runner": "pytest unittest nose nose2 ward",
    "e2e-test-runner": "playwright cypress puppeteer selenium webdriverio testcafe nightwatch detox",
    "bundler": "webpack vite rollup esbuild parcel turbopack rspack snowpack tsup rolldown",
    "js-linter": "eslint tslint biome oxlint standard jshint",
    "js-formatter": "prettier biome dprint",
    "python-linter": "ruff flake8 pylint pyflakes pycodestyle",
    "python-formatter": "black ruff yapf autopep8",
    "python-import-sorter": "isort ruff",
    "python-type-checker": "mypy pyright pytype pyre basedpyright ty",
    "go-linter": "golangci-lint staticcheck golint revive",
    "ci": "travis circleci jenkins buildkite drone teamcity bamboo appveyor github-actions gitlab-ci azure-pipelines"
          " bitbucket-pipelines woodpecker",
    "js-orm": "prisma typeorm sequelize drizzle knex mikro-orm objection kysely mongoose",
    "python-orm": "sqlalchemy peewee tortoise sqlmodel pony",
    "go-orm": "gorm ent sqlc sqlx bun",
    "rust-orm": "diesel sqlx sea-orm",
    "relational-database": "postgres postgresql mysql mariadb sqlite mssql oracle cockroachdb aurora",
    "document-database": "mongodb dynamodb couchdb firestore cosmosdb",
    "analytics-database": "clickhouse bigquery snowflake redshift duckdb druid",
    "cache": "redis memcached valkey keydb dragonfly",
    "message-broker": "rabbitmq kafka sqs nats activemq pulsar kinesis pubsub redpanda redis",
    "task-queue": "celery rq dramatiq huey arq sidekiq bullmq bull resque",
    "search-engine": "elasticsearch opensearch meilisearch typesense algolia solr",
    "email-service": "sendgrid postmark mailgun ses mailchimp mandrill resend sparkpost",
    "hosting": "heroku fly render vercel netlify railway flyio fly.io",
    "orchestrator": "kubernetes k8s nomad ecs swarm",
    "infrastructure-as-code": "terraform pulumi cloudformation cdk opentofu",
    "python-web-framework": "django flask fastapi starlette sanic litestar tornado pyramid",
    "js-server-framework": "express fastify koa hapi nestjs hono",
    "frontend-framework": "react vue svelte angular solid preact",
    "state-management": "redux zustand mobx jotai recoil pinia vuex",
    "http-client": "axios ky got superagent requests httpx aiohttp urllib3",
    "schema-validation": "zod yup joi valibot ajv pydantic marshmallow",
    "auth-provider": "auth0 clerk cognito keycloak okta nextauth lucia",
    "error-tracking": "sentry rollbar bugsnag honeybadger airbrake",
    "observability": "datadog newrelic honeycomb grafana dynatrace",
    "js-logger": "winston pino bunyan",
    "python-logger": "loguru structlog",
    "go-logger": "zap logrus zerolog slog",
    "runtime": "node nodejs node.js deno bun",
    "go-router": "gin echo chi fiber gorilla",
    "rust-web-framework": "actix actix-web axum rocket warp poem",
    "rust-async-runtime": "tokio async-std smol",
    "monorepo-tool": "turborepo turbo nx lerna rush",
    "docs-generator": "sphinx mkdocs mkdocstrings docusaurus vitepress jekyll hugo typedoc pdoc",
    "version-manager": "nvm fnm volta asdf pyenv mise",
    "feature-flags": "launchdarkly unleash flagsmith growthbook split",
    "container-registry": "ecr gcr ghcr dockerhub quay",
    "date-library": "moment dayjs luxon date-fns",
    "css-tooling": "tailwind tailwindcss styled-components emotion sass less",
    "mock-generator": "mockgen mockery gomock",
    "go-test-runner": "gotestsum",
    "secrets-manager": "vault doppler 1password",
    "dev-environment": "tilt skaffold docker-compose devspace garden",
    "task-runner": "make just task invoke nox tox",
    "versioning": "changesets semantic-release release-please cargo-release release-plz goreleaser",
    "compression": "gzip zstd lz4 brotli snappy deflate xz bzip2 zlib",
    "python-app-server": "gunicorn uvicorn hypercorn daphne waitress uwsgi granian",
}

_MULTI = {"github actions": "github-actions", "gitlab ci": "gitlab-ci", "azure pipelines": "azure-pipelines",
          "bitbucket pipelines": "bitbucket-pipelines", "new relic": "newrelic", "docker compose": "docker-compose",
          "travis ci": "travis", "circle ci": "circleci", "amazon ses": "ses", "aws ses": "ses", "aws sqs": "sqs",
          "google pubsub": "pubsub", "styled components": "styled-components", "date fns": "date-fns",
          "semantic release": "semantic-release", "release please": "release-please"}


_MULTI_PATTERNS = tuple((phrase, re.compile(rf"(?<![\w-]){re.escape(phrase)}(?![\w-])"), name)
                        for phrase, name in _MULTI.items())


#: Tool names that are common English words: they count only when written as a name (capitalised
#: inside a sentence, or as code), never in "make sure", "render the page", "requests are retried".
AMBIGUOUS = frozenset("make just task invoke standard echo split solid less got requests render fly drone rush turbo"
                      " ent poem warp rocket express vault garden emotion pony ward smol tape karma nose hatch swarm"
                      " bull slog zap chi fiber gorilla tilt quay mocha ava split grafana".split())


@cache
def _index() -> dict[str, frozenset[str]]:
    roles: dict[str, set[str]] = {}
    for role, names in ROLES.items():
        for name in names.split():
            roles.setdefault(name, set()).add(role)
    return {name: frozenset(found) for name, found in roles.items()}


def roles_of(name: str) -> frozenset[str]:
    """The roles a tool name plays (empty for a word that names no known tool)."""
    return _index().get(name.lower(), frozenset())


_TOKEN = re.compile(r"`[^`]*`|[A-Za-z0-9][\w.:+-]*[\w+]|[A-Za-z]|[.!?;]")


@lru_cache(maxsize=TEXT_CACHE)
def tools_in(text: str) -> dict[str, frozenset[str]]:
    """The known tools a text names, each with its roles. Multi-word names ("GitHub Actions") count once;
    a name that is also an English word counts only when written as a name."""
    found: dict[str, frozenset[str]] = {}
    index = _index()  # roles_of, without a call a word
    low = " " + " ".join(text.lower().replace("`", " ").split()) + " "
    for phrase, pattern, name in _MULTI_PATTERNS:
        if phrase in low and pattern.search(low):  # the plain test first: most texts name none of them
            found[name] = roles_of(name)
    sentence_start = True
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        if raw in ".!?;":
            sentence_start = True
            continue
        code = raw.startswith("`")
        words = raw.strip("`").split() if code else [raw]
        for i, word in enumerate(words):
            name = word.lower().rstrip(".:")
            roles = index.get(name.lower())
            if not roles:
                continue
            as_name = code or (word[:1].isupper() and not sentence_start)
            if name in AMBIGUOUS and not as_name:
                continue
            if code and i > 0 and name in AMBIGUOUS:
                continue  # `make test`: the runner is the first word of a command, not an argument
            found[name] = roles
        sentence_start = False
    return found
