"""What the two command-line tools share that needs no Scrapy: their inputs, read one way."""
