// Seeds a local database with demo customers and orders.
console.log("seeding demo data");
