-- A licence's region: where the school is, as a path of names broadest
-- first ("Jawa Barat/Kota Bandung"), for the item analysis by region; ''
-- for none.
ALTER TABLE licenses ADD COLUMN region text NOT NULL DEFAULT '';
