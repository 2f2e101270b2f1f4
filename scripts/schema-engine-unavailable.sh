#!/bin/sh
# Stand-in for Prisma's schema-engine binary, which cannot be downloaded on our machines.
# `prisma generate` never needs it; `prisma migrate` / `db push` do, and must fail loudly
# rather than "succeed" doing nothing. Prospero applies prisma/migrations itself at start
# (src/store/migrate.ts); author new migrations with tools/prisma-migrate.
echo "prospero: Prisma's schema engine is not available offline." >&2
echo "  Migrations are applied by 'prospero serve' at start; create new ones with" >&2
echo "  'npm --prefix tools/prisma-migrate run new -- <name>' (see tools/prisma-migrate/README.md)." >&2
exit 1
