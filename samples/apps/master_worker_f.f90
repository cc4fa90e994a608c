! master_worker_f: the Fortran twin of master_worker.c (the same calls in the same order), a
! master that hands tasks to workers and collects their results from MPI_ANY_SOURCE.
!
! Rank 0 is the master; each round it serves the next worker in turn (1, 2, ..., P-1, 1, ...):
! it sends the worker a task and receives the result from MPI_ANY_SOURCE, each round with
! another form of wildcard receive: MPI_RECV; MPI_IRECV completed by MPI_WAIT; two MPI_IRECV
! completed one at a time by MPI_WAITANY (the worker answers twice); MPI_IRECV completed by
! MPI_WAITALL; MPI_SENDRECV (the task out, the result in); MPI_PROBE, then MPI_RECV from the
! sender the probe found. Only the served worker sends, so which sender each wildcard matches
! is the same in every run: the recorder notes it (`matched`) from Fortran as from C
! (tests/e2e/record_e2e.sh `twins`).
!
! Usage: master_worker_f [rounds=12]
program master_worker_f
  use mpi
  implicit none
  integer, parameter :: kTask = 1, kResult = 2, kWords = 64
  integer :: ierr, rank, nprocs, rounds, round, worker, form, idx, i, nargs
  integer :: status(MPI_STATUS_SIZE), reqs(2)
  double precision :: task(kWords), result(kWords), second(kWords), total, total_all
  character(len=32) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  rounds = 12
  nargs = command_argument_count()
  if (nargs >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) rounds
  end if
  call MPI_BCAST(rounds, 1, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  do i = 1, kWords
    task(i) = i - 1
  end do
  total = 0
  result = 0
  second = 0
  do round = 0, rounds - 1
    if (nprocs < 2) exit
    worker = 1 + mod(round, nprocs - 1)
    form = mod(round, 6)
    if (rank == 0) then
      select case (form)
      case (0)
        call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, MPI_COMM_WORLD, ierr)
        call MPI_RECV(result, kWords, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, status, ierr)
      case (1)
        call MPI_IRECV(result, kWords, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, MPI_COMM_WORLD, ierr)
        call MPI_WAIT(reqs(1), MPI_STATUS_IGNORE, ierr)
      case (2)
        call MPI_IRECV(result, kWords, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_IRECV(second, kWords, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, reqs(2), ierr)
        call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, MPI_COMM_WORLD, ierr)
        call MPI_WAITANY(2, reqs, idx, status, ierr)
        call MPI_WAITANY(2, reqs, idx, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_IRECV(result, kWords, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, reqs(1), ierr)
        call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, MPI_COMM_WORLD, ierr)
        call MPI_WAITALL(1, reqs, MPI_STATUSES_IGNORE, ierr)
      case (4)
        call MPI_SENDRECV(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, result, kWords, MPI_DOUBLE_PRECISION, &
                          MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      case default
        call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, worker, kTask, MPI_COMM_WORLD, ierr)
        call MPI_PROBE(MPI_ANY_SOURCE, kResult, MPI_COMM_WORLD, status, ierr)
        call MPI_RECV(result, kWords, MPI_DOUBLE_PRECISION, status(MPI_SOURCE), kResult, MPI_COMM_WORLD, &
                      MPI_STATUS_IGNORE, ierr)
      end select
      total = total + result(1)
    else if (rank == worker) then
      call MPI_RECV(task, kWords, MPI_DOUBLE_PRECISION, 0, kTask, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      do i = 1, kWords
        task(i) = task(i) * 0.5d0 + round + (i - 1)
      end do
      call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, 0, kResult, MPI_COMM_WORLD, ierr)
      if (form == 2) call MPI_SEND(task, kWords, MPI_DOUBLE_PRECISION, 0, kResult, MPI_COMM_WORLD, ierr)
    end if
  end do
  call MPI_REDUCE(total, total_all, 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(a, i0, a, i0, a, f0.1)', 'master_worker_f: ', rounds, ' rounds on ', nprocs, &
                        ' ranks, checksum ', total_all
  call MPI_FINALIZE(ierr)
end program master_worker_f
