# Reference figures for internal/itemanalysis, computed independently of it
# with R and the psych package (Debian's r-base-core and r-cran-psych):
#
#   cd internal/itemanalysis/testdata && Rscript reference.R
#
# It writes the two public datasets as CSV (one row per student) and what R
# and psych make of them as JSON; itemanalysis_reference_test.go analyses
# the same CSV and compares.
#
# - lsat: the Law School Admission Test, section 6, five items scored right
#   or wrong, 1,000 examinees (Bock & Lieberman 1970, Psychometrika 35,
#   179-197; the LSAT data of R's ltm and mirt packages), as its 32 response
#   patterns and their counts.
# - attitude: R's own datasets::attitude (Chatterjee & Price 1977), 30
#   departments rating seven aspects from 0 to 100, read as seven items of
#   100 points each: partial credit.
suppressMessages(library(psych))

counts <- c(3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15,
            10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298)
patterns <- as.matrix(expand.grid(rep(list(0:1), 5))[, 5:1]) # item 5 varies fastest
lsat <- patterns[rep(seq_len(32), counts), ]
colnames(lsat) <- paste0("item", 1:5)
attitude <- as.matrix(datasets::attitude)

# Upper and lower groups: the top and bottom 27 % by total; the students
# tied on the total at a group's edge each count for the same fraction.
group_weights <- function(tot, g, decreasing) {
  w <- numeric(length(tot))
  left <- g
  for (v in sort(unique(tot), decreasing = decreasing)) {
    idx <- which(tot == v)
    take <- min(length(idx), left)
    w[idx] <- take / length(idx)
    left <- left - take
    if (left <= 0) break
  }
  w
}

num <- function(x) sprintf("%.15g", x)
arr <- function(x) paste0("[", paste(num(x), collapse = ", "), "]")

reference <- function(name, x, max_points) {
  write.csv(x, paste0(name, ".csv"), row.names = FALSE)
  tot <- rowSums(x)
  a <- psych::alpha(as.data.frame(x), warnings = FALSE, check.keys = FALSE)
  g <- 0.27 * nrow(x)
  up <- group_weights(tot, g, TRUE)
  low <- group_weights(tot, g, FALSE)
  upper <- colSums(up * x) / g / max_points
  lower <- colSums(low * x) / g / max_points
  q <- quantile(tot, c(0, 0.25, 0.5, 0.75, 1), type = 7, names = FALSE)
  lines <- c(
    "{",
    paste0('  "source": "R ', R.version$major, ".", R.version$minor, ", psych ", packageVersion("psych"), '",'),
    paste0('  "students": ', nrow(x), ","),
    paste0('  "max_points": ', num(max_points), ","),
    paste0('  "mean": ', num(mean(tot)), ","),
    paste0('  "sd": ', num(sd(tot)), ","),
    paste0('  "quantiles": ', arr(q), ","),
    paste0('  "alpha": ', num(a$total$raw_alpha), ","),
    paste0('  "sem": ', num(sd(tot) * sqrt(1 - a$total$raw_alpha)), ","),
    paste0('  "facility": ', arr(colMeans(x) / max_points), ","),
    paste0('  "item_rest": ', arr(a$item.stats$r.drop), ","),
    paste0('  "upper": ', arr(upper), ","),
    paste0('  "lower": ', arr(lower)),
    "}")
  writeLines(lines, paste0(name, ".json"))
}

reference("lsat", lsat, 1)
reference("attitude", attitude, 100)
