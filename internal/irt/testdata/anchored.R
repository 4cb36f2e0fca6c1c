# Reference for internal/irt's TestAnchoredAgreesWithR: a fixed item
# parameter calibration of LSAT (R's ltm::LSAT, 1,000 students of five
# questions) under the 2PL and under the Rasch model, its first two
# questions anchored at parameters off LSAT's own scale (so that the
# population's mean and SD move away from 0 and 1): the marginal likelihood
# over abilities N(mu, sigma^2) is maximised over mu, log(sigma) and the
# three free questions' difficulties and log discriminations (in the Rasch
# model every question has the anchors' one discrimination, and only the
# difficulties are free), by optim's BFGS from base R.
# The quadrature is 21-point Gauss-Hermite, as the Go code's, its nodes
# computed here by the Golub-Welsch eigenvalue method. Written to
# anchored.csv. Base R only, with its own parametrization (difficulty and
# log discrimination on the ability's scale), independent of the Go code.
# Run: Rscript anchored.R (Debian: apt-get install r-base-core).
counts <- c(3, 6, 2, 11, 1, 1, 3, 4, 1, 8, 0, 16, 0, 3, 2, 15, 10, 29, 14, 81, 3, 28, 15, 80, 16, 56, 21, 173, 11, 61, 28, 298)
patterns <- t(sapply(0:31, function(p) as.integer(intToBits(p))[5:1]))
anchor.b <- c(-3.0, -1.0)
anchor.a <- list("2pl" = c(0.9, 0.8), rasch = c(0.85, 0.85))

n <- 21
J <- matrix(0, n, n)
for (k in 1:(n - 1)) J[k, k + 1] <- J[k + 1, k] <- sqrt(k / 2)
e <- eigen(J, symmetric = TRUE)
z <- sqrt(2) * e$values
w <- e$vectors[1, ]^2

loglik <- function(mu, sigma, b, a) {
  theta <- mu + sigma * z
  p <- plogis(outer(theta, b, "-") * matrix(a, n, 5, byrow = TRUE))
  l <- exp(log(p) %*% t(patterns) + log(1 - p) %*% t(1 - patterns))
  sum(counts * log(colSums(w * l)))
}

fit <- function(model) {
  a0 <- anchor.a[[model]]
  unpack <- function(x) {
    free.a <- if (model == "2pl") exp(x[6:8]) else rep(a0[1], 3)
    list(mu = x[1], sigma = exp(x[2]), b = c(anchor.b, x[3:5]), a = c(a0, free.a))
  }
  f <- function(x) { u <- unpack(x); -loglik(u$mu, u$sigma, u$b, u$a) }
  x <- c(0, 0, -1, -1, -1, if (model == "2pl") c(0, 0, 0))
  for (round in 1:5) {
    x <- optim(x, f, method = "BFGS", control = list(reltol = 1e-15, maxit = 10000, ndeps = rep(1e-6, length(x))))$par
  }
  u <- unpack(x)
  data.frame(model = model, mean = u$mu, sd = u$sigma, b3 = u$b[3], b4 = u$b[4], b5 = u$b[5],
             a3 = u$a[3], a4 = u$a[4], a5 = u$a[5], loglik = -f(x))
}

out <- rbind(fit("2pl"), fit("rasch"))
write.csv(format(out, digits = 10), "anchored.csv", row.names = FALSE, quote = FALSE)
